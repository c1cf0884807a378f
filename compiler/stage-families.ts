// Steps 1-2 for one set of families, in one thread: read each family file line by line, validate
// and flatten each batch of lines (validate-lines.ts), and insert the rows into that family's
// staging tables in `db`. Synchronous, so that it runs the same on the main thread and on a
// worker thread (read-sources.ts). Nothing grows in memory with the size of the input, nor with
// the number of problems: only the first few of each kind are stored (problem-report.ts).
import { closeSync } from "node:fs";
import type Database from "better-sqlite3";
import { openFamilyFile } from "./family-file.ts";
import { ProblemLimiter } from "./problem-report.ts";
import { InvalidUtf8Line, OverlongLine, readLines } from "./read-lines.ts";
import { familyNamed } from "./families/index.ts";
import { problemsDdl, stagingDdl, stagingIndexSql, stagingInsertSql, stagingWidth, unpublishedDdl, type StagingRows } from "./staging.ts";
import { validateBatch } from "./validate-lines.ts";

export interface StageOptions {
  sourceDir: string;
  xSecret: string | undefined;
  onProgress: ((message: string) => void) | undefined;
  /** Problems stored of each kind (problemsKept); the others are only counted. */
  keepProblems: number;
}

/** Stores the problems a limiter admits; at the end, the count of the others by kind. */
class ProblemStore {
  readonly #limiter: ProblemLimiter;
  readonly #insert: Database.Statement;
  readonly #db: Database.Database;

  constructor(db: Database.Database, keep: number) {
    this.#db = db;
    this.#limiter = new ProblemLimiter(keep);
    this.#insert = db.prepare("INSERT INTO problems (file, line, path, message) VALUES (?, ?, ?, ?)");
  }

  add(file: string, line: number, path: string, message: string): void {
    if (this.#limiter.admit(file, path, message)) this.#insert.run(file, line, path, message);
  }

  writeOverflow(): void {
    const insert = this.#db.prepare("INSERT INTO problem_overflow (kind, count) VALUES (?, ?)");
    this.#db.transaction(() => {
      for (const [kind, count] of this.#limiter.overflow()) insert.run(kind, count);
    })();
  }
}

const PROGRESS_EVERY = 100_000;
const LINES_PER_TRANSACTION = 20_000;
const LINES_PER_BATCH = 1_000;
/** Staging rows per INSERT statement: fewer statement runs for the same rows. */
const ROWS_PER_INSERT = 16;

/** Creates the problems table and the staging tables of `families`, then stages each family file. */
export function stageFamilies(db: Database.Database, families: readonly { family: string; file: string }[], options: StageOptions): void {
  db.exec(problemsDdl);
  db.exec(unpublishedDdl);
  for (const { family } of families) db.exec(stagingDdl(family));
  const inserter = new StagingInserter(db);
  const problems = new ProblemStore(db, options.keepProblems);
  for (const family of families) {
    const opened = openFamilyFile(options.sourceDir, family.file);
    if (opened !== undefined && "problem" in opened) problems.add(family.file, 0, "(root)", opened.problem);
    if (opened !== undefined && "fd" in opened) {
      try {
        stageFamily(db, family, opened.fd, inserter, problems, options);
      } finally {
        closeSync(opened.fd);
      }
    }
    db.exec(`BEGIN; ${stagingIndexSql(family.family)} COMMIT;`);
  }
  problems.writeOverflow();
}

function stageFamily(db: Database.Database, { family, file }: { family: string; file: string }, fd: number, inserter: StagingInserter, problems: ProblemStore, options: StageOptions): void {
  let secretReported = false;
  const missingSecret = familyNamed(family).xHandle?.missingSecret;
  const unpublished = new Map<string, number>();

  const stage = (firstLine: number, lines: string[]) => {
    const result = validateBatch({ family, firstLine, lines }, options.xSecret);
    for (const [path, n] of result.unpublished) unpublished.set(path, (unpublished.get(path) ?? 0) + n);
    for (const p of result.problems) problems.add(file, p.line, p.path, p.message);
    for (const line of result.needSecret) {
      if (missingSecret === undefined || (missingSecret.once && secretReported)) continue;
      problems.add(file, line, missingSecret.path, `${missingSecret.message} (--x-secret-file <file>, env CEI_X_SECRET, or .cei-x-secret in the source folder)`);
      secretReported = true;
    }
    inserter.insert(result.rows);
  };

  let lineNumber = 0;
  let batch: string[] = [];
  db.exec("BEGIN");
  for (const line of readLines(fd)) {
    lineNumber += 1;
    if (line instanceof OverlongLine) {
      problems.add(file, lineNumber, "(root)", `line longer than ${line.maxBytes / 1024 / 1024} MiB, the maximum: split the record or shorten its text`);
      batch.push(""); // keeps the numbering of the batch; a blank line is skipped
    } else if (line instanceof InvalidUtf8Line) {
      problems.add(file, lineNumber, "(root)", invalidUtf8Message(line));
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
  const insert = db.prepare("INSERT INTO unpublished (family, path, count) VALUES (?, ?, ?)");
  for (const [path, n] of unpublished) insert.run(family, path, n);
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

  #statement(table: string, rows: number): Database.Statement {
    const key = `${table}/${rows}`;
    let statement = this.#statements.get(key);
    if (statement === undefined) {
      statement = this.#db.prepare(stagingInsertSql(table, rows));
      this.#statements.set(key, statement);
    }
    return statement;
  }

  insert(rows: StagingRows): void {
    for (const [table, values] of Object.entries(rows)) {
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
