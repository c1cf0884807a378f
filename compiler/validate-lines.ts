// Parse, validate and flatten a batch of source lines: the per-line work of reading sources,
// kept pure so that it runs the same inline or on a worker thread (see read-sources.ts).
import { familyNamed } from "./families/index.ts";
import { BOM, invalidJsonMessage, MAX_NESTING, mayRepeatKeys, nestedDeeperThan, repeatedKey } from "./json-line-diagnostics.ts";
import { formatIssues, formatPath } from "./issues.ts";
import { invalidTableOf, stagingRows, type StagingRows } from "./staging.ts";
import { countUnpublished } from "./unpublished.ts";
import { handleSearchHash, handleSearchKey, xAccountId } from "../snapshot/x-ids.ts";

export interface LineBatch {
  family: string;
  /** The 1-based line number of `lines[0]`. */
  firstLine: number;
  lines: string[];
}

export interface BatchResult {
  /** The staging rows of the batch's valid records. */
  rows: StagingRows;
  /** Every problem, in line order. */
  problems: Array<{ line: number; path: string; message: string }>;
  /** Lines of valid records that name an X handle when no secret was given (not staged). */
  needSecret: number[];
  /** How many valid records (or list items) carry each field the family accepts and drops (unpublished.ts). */
  unpublished: Map<string, number>;
}

export function validateBatch(batch: LineBatch, xSecret: string | undefined): BatchResult {
  const family = familyNamed(batch.family);
  const { schema, xHandle } = family;
  const searchKey = xSecret === undefined ? undefined : handleSearchKey(xSecret);
  const result: BatchResult = { rows: {}, problems: [], needSecret: [], unpublished: new Map() };
  const invalidTable = invalidTableOf(family);
  const claimedBy = family.reference?.claimedBy;
  /** Keeps a failed record's id, so that references to it are not reported too (checks.ts). */
  const keepInvalid = (line: number, input: unknown, text: string) => {
    if (invalidTable === undefined || claimedBy === undefined) return;
    const id = claimedValue(input, text, claimedBy);
    if (id === undefined) return;
    if (claimedBy === "id") (result.rows[invalidTable] ??= []).push(line, id);
    else if (xSecret !== undefined) (result.rows[invalidTable] ??= []).push(line, xAccountId(xSecret, id));
  };
  batch.lines.forEach((line, i) => {
    const lineNumber = batch.firstLine + i;
    if (line.trim() === "") return;
    let text = line;
    let failed = false;
    if (text.charCodeAt(0) === 0xfeff) {
      const message = lineNumber === 1
        ? "the file starts with a byte order mark (BOM, bytes EF BB BF): save it as UTF-8 without a BOM"
        : "the line starts with a byte order mark (BOM, U+FEFF): remove it";
      result.problems.push({ line: lineNumber, path: "(root)", message });
      text = text.slice(BOM.length);
      failed = true;
    }
    if (nestedDeeperThan(text)) {
      result.problems.push({ line: lineNumber, path: "(root)", message: `objects and arrays nested more than ${MAX_NESTING} levels deep: not read (a record needs at most a few)` });
      keepInvalid(lineNumber, undefined, text);
      return;
    }
    let input: unknown;
    try {
      input = JSON.parse(text);
    } catch {
      result.problems.push({ line: lineNumber, path: "(root)", message: invalidJsonMessage(text) });
      keepInvalid(lineNumber, undefined, text);
      return;
    }
    if (mayRepeatKeys(text, input)) {
      const repeated = repeatedKey(text);
      if (repeated !== undefined) {
        const message = `duplicate key ${JSON.stringify(repeated.key)}: a record may name each field once (JSON would keep only the last value)`;
        result.problems.push({ line: lineNumber, path: formatPath(repeated.path), message });
        failed = true;
      }
    }
    const parsed = schema.safeParse(input);
    if (!parsed.success) {
      for (const p of formatIssues(parsed.error.issues, input)) result.problems.push({ line: lineNumber, ...p });
      failed = true;
    }
    if (failed || !parsed.success) {
      keepInvalid(lineNumber, input, text);
      return;
    }
    const record = parsed.data as Record<string, unknown>;
    countUnpublished(batch.family, record, result.unpublished);
    const handle = xHandle?.of(record);
    if (handle === undefined) {
      stagingRows(family, record, lineNumber, null, null, result.rows);
    } else if (xSecret === undefined || searchKey === undefined) {
      result.needSecret.push(lineNumber);
    } else {
      stagingRows(family, record, lineNumber, xAccountId(xSecret, handle), handleSearchHash(searchKey, handle), result.rows);
    }
  });
  return result;
}

/** The string a failed record gives for `field`: from the parsed object, or for a line that is not JSON, its first `"field": "..."`. */
function claimedValue(input: unknown, text: string, field: string): string | undefined {
  if (input !== undefined) {
    const value = input !== null && typeof input === "object" ? (input as Record<string, unknown>)[field] : undefined;
    return typeof value === "string" ? value : undefined;
  }
  const match = new RegExp(`"${field}"\\s*:\\s*("(?:[^"\\\\]|\\\\.)*")`).exec(text);
  if (match === null) return undefined;
  try {
    return JSON.parse(match[1]!) as string;
  } catch {
    return undefined;
  }
}
