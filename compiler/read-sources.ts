// Step 1-2: stream every family file line by line, validate it, and stage valid records
// (as JSONB, with their line number) in the staging database. Problems are staged too, so
// that nothing grows in JS memory with the size of the input.
import { createReadStream, existsSync, statSync } from "node:fs";
import { join } from "node:path";
import { createInterface } from "node:readline";
import { Worker } from "node:worker_threads";
import type Database from "better-sqlite3";
import { familyFiles } from "./families/index.ts";
import { validateBatch, type LineBatch, type LineVerdict } from "./validate-lines.ts";

export interface ReadOptions {
  sourceDir: string;
  xSecret: string | undefined;
  onProgress: ((message: string) => void) | undefined;
  useWorker?: boolean | undefined;
}

const PROGRESS_EVERY = 100_000;
const LINES_PER_TRANSACTION = 20_000;
const LINES_PER_BATCH = 1_000;
/** Batches validated ahead of the inserts; bounds memory whatever the input size. */
const BATCHES_IN_FLIGHT = 8;
/** Below this much input a worker's start-up costs more than it saves. */
const WORKER_THRESHOLD_BYTES = 4 * 1024 * 1024;

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

/**
 * Validates batches of lines, in order. Large inputs are parsed and validated on a worker thread
 * while this thread reads and inserts, so that compiling costs about what reading and inserting
 * alone cost; small inputs are validated inline.
 */
class BatchValidator {
  readonly #worker: Worker | undefined;
  readonly #waiting: Array<{ resolve: (verdicts: LineVerdict[]) => void; reject: (error: Error) => void }> = [];
  readonly #xSecret: string | undefined;
  /** Set once the worker has failed: every batch after that fails with the same error. */
  #failure: Error | undefined;

  constructor(useWorker: boolean, xSecret: string | undefined) {
    this.#xSecret = xSecret;
    if (!useWorker) return;
    this.#worker = new Worker(new URL("./_validate-worker.mjs", import.meta.url), { workerData: { xSecret } });
    // The worker answers in order, one message per batch; if it dies, every batch still waiting fails.
    this.#worker.on("message", (verdicts: LineVerdict[]) => this.#waiting.shift()!.resolve(verdicts));
    this.#worker.on("error", (error: Error) => this.#fail(error));
    this.#worker.on("exit", (code) => this.#fail(new Error(`the validation worker exited with code ${code}`)));
  }

  #fail(error: Error): void {
    this.#failure ??= error;
    for (const waiting of this.#waiting.splice(0)) waiting.reject(this.#failure);
  }

  validate(batch: LineBatch): Promise<LineVerdict[]> {
    if (this.#worker === undefined) return Promise.resolve(validateBatch(batch, this.#xSecret));
    const worker = this.#worker;
    if (this.#failure !== undefined) return Promise.reject(this.#failure);
    return new Promise((resolve, reject) => {
      this.#waiting.push({ resolve, reject });
      worker.postMessage(batch);
    });
  }

  async close(): Promise<void> {
    this.#worker?.removeAllListeners("exit");
    await this.#worker?.terminate();
  }
}

function inputBytes(sourceDir: string): number {
  let bytes = 0;
  for (const { file } of familyFiles) {
    const path = join(sourceDir, file);
    if (existsSync(path)) bytes += statSync(path).size;
  }
  return bytes;
}

export async function readSources(db: Database.Database, options: ReadOptions): Promise<void> {
  const validator = new BatchValidator(
    options.useWorker ?? inputBytes(options.sourceDir) >= WORKER_THRESHOLD_BYTES,
    options.xSecret,
  );
  try {
    for (const family of familyFiles) await readFamily(db, family, validator, options);
  } finally {
    await validator.close();
  }
}

async function readFamily(db: Database.Database, { family, file }: (typeof familyFiles)[number], validator: BatchValidator, options: ReadOptions): Promise<void> {
  const path = join(options.sourceDir, file);
  if (!existsSync(path)) return;
  const addProblem = db.prepare("INSERT INTO problems (file, line, path, message) VALUES (?, ?, ?, ?)");
  const columns = family === "x_accounts" ? "line, doc, xid, handle_hash" : family === "trending" ? "line, doc, xid" : "line, doc";
  const values = family === "x_accounts" ? "?, jsonb(?), ?, ?" : family === "trending" ? "?, jsonb(?), ?" : "?, jsonb(?)";
  const insert = db.prepare(`INSERT INTO r_${family} (${columns}) VALUES (${values})`);
  let secretReported = false;
  let uncommitted = 0;

  const stage = (firstLine: number, lines: string[], verdicts: LineVerdict[]) => {
    verdicts.forEach((verdict, i) => {
      const lineNumber = firstLine + i;
      if (verdict.kind === "blank") return;
      if (verdict.kind === "problems") {
        for (const p of verdict.problems) addProblem.run(file, lineNumber, p.path, p.message);
      } else if (verdict.needsSecret && family === "x_accounts") {
        if (!secretReported) addProblem.run(file, lineNumber, "(root)", "an X secret is required to compile X accounts (--x-secret-file <file> or env CEI_X_SECRET)");
        secretReported = true;
      } else if (verdict.needsSecret) {
        addProblem.run(file, lineNumber, "entity.handle", "an X secret is required to resolve X handles (--x-secret-file <file> or env CEI_X_SECRET)");
      } else if (family === "x_accounts") {
        insert.run(lineNumber, lines[i], verdict.xid, verdict.handleHash);
      } else if (family === "trending") {
        insert.run(lineNumber, lines[i], verdict.xid);
      } else {
        insert.run(lineNumber, lines[i]);
      }
    });
    uncommitted += lines.length;
    if (uncommitted >= LINES_PER_TRANSACTION) {
      db.exec("COMMIT; BEGIN");
      uncommitted = 0;
    }
  };

  const inFlight: Array<{ firstLine: number; lines: string[]; verdicts: Promise<LineVerdict[]> }> = [];
  const stageOldest = async () => {
    const oldest = inFlight.shift()!;
    stage(oldest.firstLine, oldest.lines, await oldest.verdicts);
  };
  let lineNumber = 0;
  let batch: string[] = [];
  const dispatch = () => {
    const verdicts = validator.validate({ family, lines: batch });
    // Awaited in order by stageOldest; until then a failure must not count as unhandled.
    verdicts.catch(() => undefined);
    inFlight.push({ firstLine: lineNumber - batch.length + 1, lines: batch, verdicts });
    batch = [];
  };

  db.exec("BEGIN");
  const lines = createInterface({ input: createReadStream(path, { encoding: "utf8" }), crlfDelay: Infinity });
  for await (const line of lines) {
    lineNumber += 1;
    batch.push(line);
    if (lineNumber % PROGRESS_EVERY === 0) options.onProgress?.(`${file}: ${lineNumber} lines`);
    if (batch.length < LINES_PER_BATCH) continue;
    dispatch();
    if (inFlight.length >= BATCHES_IN_FLIGHT) await stageOldest();
  }
  if (batch.length > 0) dispatch();
  while (inFlight.length > 0) await stageOldest();
  db.exec("COMMIT");
  options.onProgress?.(`${file}: ${lineNumber} lines read`);
}
