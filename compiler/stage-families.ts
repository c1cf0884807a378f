// Steps 1-2 for one set of families, in one thread: read each family file line by line, validate
// and flatten each batch of lines (validate-lines.ts), and insert the rows into that family's
// staging tables in `db`. Synchronous, so that it runs the same on the main thread and on a
// worker thread (read-sources.ts). Nothing grows in memory with the size of the input.
import { existsSync } from "node:fs";
import { join } from "node:path";
import type Database from "better-sqlite3";
import { InvalidUtf8Line, OverlongLine, readLines } from "./read-lines.ts";
import { problemsDdl, stagingDdl, stagingIndexSql, stagingInsertSql, stagingWidth, type StagingRows, type StagingTable } from "./staging.ts";
import { validateBatch } from "./validate-lines.ts";

export interface StageOptions {
  sourceDir: string;
  xSecret: string | undefined;
  onProgress: ((message: string) => void) | undefined;
}

const PROGRESS_EVERY = 100_000;
const LINES_PER_TRANSACTION = 20_000;
const LINES_PER_BATCH = 1_000;
/** Staging rows per INSERT statement: fewer statement runs for the same rows. */
const ROWS_PER_INSERT = 16;

/** Creates the problems table and the staging tables of `families`, then stages each family file. */
export function stageFamilies(db: Database.Database, families: readonly { family: string; file: string }[], options: StageOptions): void {
  db.exec(problemsDdl);
  for (const { family } of families) db.exec(stagingDdl(family));
  const inserter = new StagingInserter(db);
  for (const family of families) {
    stageFamily(db, family, inserter, options);
    db.exec(`BEGIN; ${stagingIndexSql[family.family]} COMMIT;`);
  }
}

function stageFamily(db: Database.Database, { family, file }: { family: string; file: string }, inserter: StagingInserter, options: StageOptions): void {
  const path = join(options.sourceDir, file);
  if (!existsSync(path)) return;
  const addProblem = db.prepare("INSERT INTO problems (file, line, path, message) VALUES (?, ?, ?, ?)");
  let secretReported = false;

  const stage = (firstLine: number, lines: string[]) => {
    const result = validateBatch({ family, firstLine, lines }, options.xSecret);
    for (const p of result.problems) addProblem.run(file, p.line, p.path, p.message);
    for (const line of result.needSecret) {
      if (family !== "x_accounts") {
        addProblem.run(file, line, "entity.handle", "an X secret is required to resolve X handles (--x-secret-file <file>, env CEI_X_SECRET, or .cei-x-secret in the source folder)");
      } else if (!secretReported) {
        addProblem.run(file, line, "(root)", "an X secret is required to compile X accounts (--x-secret-file <file>, env CEI_X_SECRET, or .cei-x-secret in the source folder)");
        secretReported = true;
      }
    }
    inserter.insert(result.rows);
  };

  let lineNumber = 0;
  let batch: string[] = [];
  db.exec("BEGIN");
  for (const line of readLines(path)) {
    lineNumber += 1;
    if (line instanceof OverlongLine) {
      addProblem.run(file, lineNumber, "(root)", `line longer than ${line.maxBytes / 1024 / 1024} MiB, the maximum: split the record or shorten its text`);
      batch.push(""); // keeps the numbering of the batch; a blank line is skipped
    } else if (line instanceof InvalidUtf8Line) {
      addProblem.run(file, lineNumber, "(root)", invalidUtf8Message(line));
      batch.push("");
    } else {
      batch.push(line);
    }
    if (lineNumber % PROGRESS_EVERY === 0) options.onProgress?.(`${file}: ${lineNumber} lines`);
    if (batch.length < LINES_PER_BATCH) continue;
    stage(lineNumber - batch.length + 1, batch);
    batch = [];
    if (lineNumber % LINES_PER_TRANSACTION === 0) db.exec("COMMIT; BEGIN");
  }
  if (batch.length > 0) stage(lineNumber - batch.length + 1, batch);
  db.exec("COMMIT");
  options.onProgress?.(`${file}: ${lineNumber} lines read`);
}

/** E.g. `invalid UTF-8 at byte 5 of the line (byte 48 of the file): 0xE9 ("é" in Latin-1); save the file as UTF-8`. */
function invalidUtf8Message({ at }: InvalidUtf8Line): string {
  const hex = `0x${at.byte.toString(16).toUpperCase().padStart(2, "0")}`;
  // A byte of 0xA0-0xFF alone is most often text saved as Latin-1 (or Windows-1252).
  const latin1 = at.byte >= 0xa0 ? ` (${JSON.stringify(String.fromCharCode(at.byte))} in Latin-1)` : "";
  return `invalid UTF-8 at byte ${at.lineOffset} of the line (byte ${at.fileOffset} of the file): ${hex}${latin1}; save the file as UTF-8`;
}

/** Inserts staging rows, many per statement. */
class StagingInserter {
  readonly #db: Database.Database;
  readonly #statements = new Map<string, Database.Statement>();

  constructor(db: Database.Database) {
    this.#db = db;
  }

  #statement(table: StagingTable, rows: number): Database.Statement {
    const key = `${table}/${rows}`;
    let statement = this.#statements.get(key);
    if (statement === undefined) {
      statement = this.#db.prepare(stagingInsertSql(table, rows));
      this.#statements.set(key, statement);
    }
    return statement;
  }

  insert(rows: StagingRows): void {
    for (const [table, values] of Object.entries(rows) as Array<[StagingTable, unknown[]]>) {
      const width = stagingWidth(table);
      const chunk = width * ROWS_PER_INSERT;
      let at = 0;
      if (values.length >= chunk) {
        const many = this.#statement(table, ROWS_PER_INSERT);
        for (; at + chunk <= values.length; at += chunk) many.run(values.slice(at, at + chunk));
      }
      const one = this.#statement(table, 1);
      for (; at < values.length; at += width) one.run(values.slice(at, at + width));
    }
  }
}
