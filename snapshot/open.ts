// Opening a compiled snapshot for serving: read-only and of the format this server reads; checking
// a file's integrity before it is swapped in (server/serving.ts, which opens a private copy of the
// file, server/snapshot-copy.ts).
import { createRequire } from "node:module";
import { Worker } from "node:worker_threads";
import Database from "better-sqlite3";
import { SNAPSHOT_FORMAT_VERSION } from "./schema.ts";

/** Address space, not memory: pages are shared with the OS page cache and read on demand. */
const SNAPSHOT_MMAP_BYTES = 1 << 30;
const require = createRequire(import.meta.url);

/** Opens `file` for serving; `name` is what error messages call it (the served path, not a copy's). */
export function openSnapshot(file: string, name = file): Database.Database {
  const db = new Database(file, { readonly: true, fileMustExist: true });
  try {
    // The file never changes while served: serving opens a private copy (copySnapshot). Holding the shared lock and memory-mapping the file saves each statement the lock, unlock,
    // stat and read system calls that SQLite otherwise makes to detect a change: measured 8-15x
    // faster primary-key reads (docs/performance.md).
    db.pragma("locking_mode = EXCLUSIVE");
    db.pragma(`mmap_size = ${SNAPSHOT_MMAP_BYTES}`);
    const row = db.prepare<[], { value: string }>("SELECT value FROM manifest WHERE key = 'format_version'").get();
    const version = row === undefined ? undefined : (JSON.parse(row.value) as unknown);
    if (version !== SNAPSHOT_FORMAT_VERSION) {
      throw new Error(
        `${name} is a snapshot of format version ${String(version ?? "(none)")}, but this server reads version ` +
          `${SNAPSHOT_FORMAT_VERSION}; recompile it with this version of cei (cei compile).`,
      );
    }
    return db;
  } catch (error) {
    db.close();
    if (error instanceof Error && /no such table/.test(error.message)) {
      throw new Error(`${name} is not a cei snapshot (it has no manifest); compile one with cei compile.`);
    }
    throw error;
  }
}

// Runs on a worker thread (plain JavaScript, so that it needs no TypeScript loader and no bundled
// entry): a full read of every page and every table, which on a large file takes seconds.
const INTEGRITY_WORKER = `
const { parentPort, workerData } = require("node:worker_threads");
const Database = require(workerData.betterSqlite3);
let db;
try {
  db = new Database(workerData.file, { readonly: true, fileMustExist: true });
  const problems = db.prepare("PRAGMA quick_check").pluck().all().filter((line) => line !== "ok");
  const manifest = Object.fromEntries(db.prepare("SELECT key, value FROM manifest").raw().all().map(([k, v]) => [k, JSON.parse(v)]));
  for (const [table, expected] of Object.entries(manifest.row_counts ?? {})) {
    const actual = db.prepare('SELECT count(*) FROM "' + table.replaceAll('"', '""') + '"').pluck().get();
    if (actual !== expected) problems.push("table " + table + " has " + actual + " rows, its manifest says " + expected);
  }
  parentPort.postMessage({ problems, contentHash: manifest.content_hash });
} catch (error) {
  // SQLite's own words ("database disk image is malformed"); an Error does not survive the thread.
  parentPort.postMessage({ problems: [String(error.message ?? error)], contentHash: undefined });
} finally {
  db?.close();
}
`;

/**
 * The integrity of the file now at `file`: SQLite's quick_check (every page and index) and the
 * manifest's row counts, on a worker thread so that the event loop keeps serving meanwhile.
 * Resolves to the content hash it saw (the caller compares it with the file it opened).
 */
export function checkSnapshotIntegrity(file: string): Promise<{ problems: string[]; contentHash: unknown }> {
  const worker = new Worker(INTEGRITY_WORKER, { eval: true, workerData: { file, betterSqlite3: require.resolve("better-sqlite3") } });
  return new Promise((resolve, reject) => {
    worker.once("message", resolve);
    worker.once("error", reject);
    worker.once("exit", (code) => reject(new Error(`the integrity check stopped with code ${code}`)));
  });
}

/** The manifest entries that serving reads, checked as it reads them. */
export function readServingManifest(file: string, db: Database.Database): {
  contentHash: string;
  snapshots: Record<string, string | null>;
  curated: Record<string, number>;
} {
  const value = (key: string): unknown => {
    const row = db.prepare<[string], { value: string }>("SELECT value FROM manifest WHERE key = ?").get(key);
    return row === undefined ? undefined : JSON.parse(row.value);
  };
  const contentHash = value("content_hash");
  const snapshots = value("snapshots");
  const curated = value("curated");
  if (typeof contentHash !== "string" || !/^[0-9a-f]{64}$/.test(contentHash)) throw new Error(`${file}: the manifest has no valid content_hash`);
  if (typeof snapshots !== "object" || snapshots === null || Array.isArray(snapshots)) throw new Error(`${file}: the manifest has no snapshots entry`);
  if (typeof curated !== "object" || curated === null || Array.isArray(curated) || !Object.values(curated).every((n) => Number.isSafeInteger(n))) {
    throw new Error(`${file}: the manifest has no valid curated entry`);
  }
  return { contentHash, snapshots: snapshots as Record<string, string | null>, curated: curated as Record<string, number> };
}
