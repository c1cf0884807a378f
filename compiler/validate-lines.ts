// Parse and validate a batch of source lines: the per-line work of reading sources, kept pure so
// that it runs the same inline or on a worker thread (see read-sources.ts).
import { familyFiles } from "./families/index.ts";
import { formatIssues } from "./issues.ts";
import { handleSearchHash, handleSearchKey, xAccountId } from "./x-ids.ts";

export interface LineBatch {
  family: string;
  lines: string[];
}

export type LineVerdict =
  | { kind: "blank" }
  | { kind: "problems"; problems: Array<{ path: string; message: string }> }
  /** A valid record; `needsSecret` when it names an X handle and no secret was given. */
  | { kind: "record"; xid: string | null; handleHash: string | null; needsSecret: boolean };

const schemas = new Map(familyFiles.map((f) => [f.family, f.schema]));

export function validateBatch(batch: LineBatch, xSecret: string | undefined): LineVerdict[] {
  const schema = schemas.get(batch.family);
  if (schema === undefined) throw new Error(`unknown family ${batch.family}`);
  const searchKey = xSecret === undefined ? undefined : handleSearchKey(xSecret);
  return batch.lines.map((line): LineVerdict => {
    if (line.trim() === "") return { kind: "blank" };
    let input: unknown;
    try {
      input = JSON.parse(line);
    } catch (error) {
      return { kind: "problems", problems: [{ path: "(root)", message: `invalid JSON: ${(error as Error).message}` }] };
    }
    const result = schema.safeParse(input);
    if (!result.success) return { kind: "problems", problems: formatIssues(result.error.issues, input) };
    const handle =
      batch.family === "x_accounts" ? (result.data as { handle: string }).handle
      : batch.family === "trending" ? (result.data as { entity: { handle?: string } }).entity.handle
      : undefined;
    if (handle === undefined) return { kind: "record", xid: null, handleHash: null, needsSecret: false };
    if (xSecret === undefined || searchKey === undefined) return { kind: "record", xid: null, handleHash: null, needsSecret: true };
    return { kind: "record", xid: xAccountId(xSecret, handle), handleHash: handleSearchHash(searchKey, handle), needsSecret: false };
  });
}
