// The compiler's worker threads: one entry (_worker.ts) running one job each. Staging jobs read
// and stage a share of the families (read-sources.ts); SQL jobs run read-only work over the
// staging databases beside the main thread (compile.ts). Each job writes to a database of its own,
// so that no two threads ever write to the same file.
import { Worker } from "node:worker_threads";
import { problemKind } from "./problem-report.ts";
import { openScratch } from "./scratch.ts";
import { stageFamilies } from "./stage-families.ts";

export type WorkerJob =
  | {
      kind: "stage";
      /** The lane's staging database, created by the job. */
      dbPath: string;
      families: Array<{ family: string; file: string }>;
      sourceDir: string;
      xSecret: string | undefined;
      keepProblems: number;
    }
  | {
      kind: "sql";
      /** The job's own scratch database, created by the job. */
      dbPath: string;
      /** Databases attached (and only read) by name. */
      attach: Array<[name: string, path: string]>;
      /** Run in one transaction; then `query`'s rows (as arrays) are the result. */
      sql: string;
      query: string;
    };

export type WorkerMessage = { progress: string } | { done: unknown[] };

/** The workers running in this process (stopCompilerWorkers). */
const running = new Set<Worker>();

/**
 * Stops every compiler worker and resolves once they have stopped (a worker inside one SQLite
 * statement stops when it returns). A stopped compile must not remove the scratch folder under a
 * running worker: its statement would fail while the thread is being torn down, and
 * better-sqlite3 throwing into a terminating thread aborts the process (SIGABRT).
 */
export async function stopCompilerWorkers(): Promise<void> {
  await Promise.all([...running].map((worker) => worker.terminate()));
}

/** Starts `job` on a worker thread; `result` settles with the job's rows, or its failure. */
export class CompilerWorker implements StartedJob {
  readonly result: Promise<unknown[]>;
  readonly #worker: Worker;

  constructor(job: WorkerJob, onProgress?: (message: string) => void) {
    this.#worker = new Worker(new URL("./_worker.mjs", import.meta.url), { workerData: job });
    running.add(this.#worker);
    this.#worker.once("exit", () => running.delete(this.#worker));
    this.result = new Promise((resolve, reject) => {
      this.#worker.on("message", (message: WorkerMessage) => {
        if ("progress" in message) onProgress?.(message.progress);
        else resolve(message.done);
      });
      this.#worker.on("error", reject);
      this.#worker.on("exit", (code) => reject(new Error(`a compiler worker exited with code ${code}`)));
    });
    // Awaited by its owner; until then a failure must not count as unhandled.
    this.result.catch(() => undefined);
  }

  async close(): Promise<void> {
    this.#worker.removeAllListeners("exit");
    await this.#worker.terminate();
  }
}

/** A job started by startJob: its rows once done, and how to stop it. */
export interface StartedJob {
  readonly result: Promise<unknown[]>;
  close(): Promise<void>;
}

/** Starts `job` on a worker thread, or runs it here and now (small inputs: a worker costs more than it saves). */
export function startJob(job: WorkerJob, onWorker: boolean, onProgress?: (message: string) => void): StartedJob {
  if (onWorker) return new CompilerWorker(job, onProgress);
  const rows = runJob(job, onProgress);
  return { result: Promise.resolve(rows), close: () => Promise.resolve() };
}

/** Runs a job on the current thread: what a worker does, also used inline for small inputs. */
export function runJob(job: WorkerJob, onProgress?: (message: string) => void): unknown[] {
  const db = openScratch(job.dbPath);
  try {
    if (job.kind === "stage") {
      stageFamilies(db, job.families, { sourceDir: job.sourceDir, xSecret: job.xSecret, keepProblems: job.keepProblems, onProgress });
      return [];
    }
    // For the checks' report (compile.ts), which groups every problem by its kind.
    db.function("problem_kind", { deterministic: true }, (file, path, message) => problemKind(String(file), String(path), String(message)));
    for (const [name, path] of job.attach) db.prepare(`ATTACH DATABASE ? AS ${name}`).run(path);
    db.exec(`BEGIN; ${job.sql} COMMIT;`);
    return db.prepare(job.query).raw().all();
  } finally {
    db.close();
  }
}
