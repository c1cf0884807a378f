// Step 1-2: stream every family file line by line, validate it, and stage valid records
// (as JSONB, with their line number) in the staging database. Problems are staged too, so
// that nothing grows in JS memory with the size of the input.
import { createReadStream, existsSync } from "node:fs";
import { join } from "node:path";
import { createInterface } from "node:readline";
import type Database from "better-sqlite3";
import { familyFiles } from "./families/index.ts";
import { formatIssues } from "./issues.ts";
import { handleSearchHash, handleSearchKey, xAccountId } from "./x-ids.ts";

export interface ReadOptions {
  sourceDir: string;
  xSecret: string | undefined;
  onProgress: ((message: string) => void) | undefined;
}

const PROGRESS_EVERY = 100_000;
const BATCH = 20_000;

/** Raw staging tables: one per family; x_accounts and trending carry the keyed X ids computed in JS. */
export const rawStagingDdl = `
CREATE TABLE problems (seq INTEGER PRIMARY KEY, file TEXT NOT NULL, line INTEGER NOT NULL, path TEXT NOT NULL, message TEXT NOT NULL);
${familyFiles
  .map((f) => {
    const extra = f.family === "x_accounts" ? ", xid TEXT NOT NULL, handle_hash TEXT NOT NULL" : f.family === "trending" ? ", xid TEXT" : "";
    return `CREATE TABLE r_${f.family} (line INTEGER PRIMARY KEY, doc BLOB NOT NULL${extra});`;
  })
  .join("\n")}
`;

export async function readSources(db: Database.Database, options: ReadOptions): Promise<void> {
  const addProblem = db.prepare("INSERT INTO problems (file, line, path, message) VALUES (?, ?, ?, ?)");
  for (const { family, file, schema } of familyFiles) {
    const path = join(options.sourceDir, file);
    if (!existsSync(path)) continue;
    const columns = family === "x_accounts" ? "line, doc, xid, handle_hash" : family === "trending" ? "line, doc, xid" : "line, doc";
    const values = family === "x_accounts" ? "?, jsonb(?), ?, ?" : family === "trending" ? "?, jsonb(?), ?" : "?, jsonb(?)";
    const insert = db.prepare(`INSERT INTO r_${family} (${columns}) VALUES (${values})`);
    const secret = options.xSecret;
    let secretReported = false;
    let searchKey: string | undefined;
    let lineNumber = 0;
    let pending = 0;
    db.exec("BEGIN");
    const lines = createInterface({ input: createReadStream(path, { encoding: "utf8" }), crlfDelay: Infinity });
    for await (const line of lines) {
      lineNumber += 1;
      if (++pending >= BATCH) {
        db.exec("COMMIT; BEGIN");
        pending = 0;
      }
      if (lineNumber % PROGRESS_EVERY === 0) options.onProgress?.(`${file}: ${lineNumber} lines`);
      if (line.trim() === "") continue;
      let input: unknown;
      try {
        input = JSON.parse(line);
      } catch (error) {
        addProblem.run(file, lineNumber, "(root)", `invalid JSON: ${(error as Error).message}`);
        continue;
      }
      const result = schema.safeParse(input);
      if (!result.success) {
        for (const p of formatIssues(result.error.issues, input)) addProblem.run(file, lineNumber, p.path, p.message);
        continue;
      }
      if (family === "x_accounts") {
        if (secret === undefined) {
          if (!secretReported) addProblem.run(file, lineNumber, "(root)", "an X secret is required to compile X accounts (--x-secret-file <file> or env CEI_X_SECRET)");
          secretReported = true;
          continue;
        }
        const handle = (result.data as { handle: string }).handle;
        insert.run(lineNumber, line, xAccountId(secret, handle), handleSearchHash(searchKey ??= handleSearchKey(secret), handle));
      } else if (family === "trending") {
        const entity = (result.data as { entity: { type: string; handle?: string } }).entity;
        if (entity.handle === undefined) insert.run(lineNumber, line, null);
        else if (secret !== undefined) insert.run(lineNumber, line, xAccountId(secret, entity.handle));
        else addProblem.run(file, lineNumber, "entity.handle", "an X secret is required to resolve X handles (--x-secret-file <file> or env CEI_X_SECRET)");
      } else {
        insert.run(lineNumber, line);
      }
    }
    db.exec("COMMIT");
    options.onProgress?.(`${file}: ${lineNumber} lines read`);
  }
}
