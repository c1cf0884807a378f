// Parse, validate and flatten a batch of source lines: the per-line work of reading sources,
// kept pure so that it runs the same inline or on a worker thread (see read-sources.ts).
import { familyFiles } from "./families/index.ts";
import { formatIssues } from "./issues.ts";
import { stagingRows, type StagingRows } from "./staging.ts";
import { handleSearchHash, handleSearchKey, xAccountId } from "./x-ids.ts";

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
}

const schemas = new Map(familyFiles.map((f) => [f.family, f.schema]));

export function validateBatch(batch: LineBatch, xSecret: string | undefined): BatchResult {
  const schema = schemas.get(batch.family);
  if (schema === undefined) throw new Error(`unknown family ${batch.family}`);
  const searchKey = xSecret === undefined ? undefined : handleSearchKey(xSecret);
  const result: BatchResult = { rows: {}, problems: [], needSecret: [] };
  batch.lines.forEach((text, i) => {
    const line = batch.firstLine + i;
    if (text.trim() === "") return;
    let input: unknown;
    try {
      input = JSON.parse(text);
    } catch (error) {
      result.problems.push({ line, path: "(root)", message: `invalid JSON: ${(error as Error).message}` });
      return;
    }
    const parsed = schema.safeParse(input);
    if (!parsed.success) {
      for (const p of formatIssues(parsed.error.issues, input)) result.problems.push({ line, ...p });
      return;
    }
    const record = parsed.data as Record<string, unknown>;
    const handle =
      batch.family === "x_accounts" ? (record as { handle: string }).handle
      : batch.family === "trending" ? (record as { entity: { handle?: string } }).entity.handle
      : undefined;
    if (handle === undefined) {
      stagingRows(batch.family, record, line, null, null, result.rows);
    } else if (xSecret === undefined || searchKey === undefined) {
      result.needSecret.push(line);
    } else {
      stagingRows(batch.family, record, line, xAccountId(xSecret, handle), handleSearchHash(searchKey, handle), result.rows);
    }
  });
  return result;
}
