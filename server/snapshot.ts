// Opening the compiled snapshot for serving: a private copy of a regular file (no other process
// can change the bytes served), read-only and of the format this server reads; checking a new
// file's integrity before it is swapped in (serving.ts).
import { constants, promises as fsp, type BigIntStats } from "node:fs";
import { createRequire } from "node:module";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { Worker } from "node:worker_threads";
import Database from "better-sqlite3";
import { SNAPSHOT_FORMAT_VERSION } from "../snapshot/schema.ts";

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
export function readServingManifest(file: string, db: Database.Database): { contentHash: string; snapshots: Record<string, string | null> } {
  const value = (key: string): unknown => {
    const row = db.prepare<[string], { value: string }>("SELECT value FROM manifest WHERE key = ?").get(key);
    return row === undefined ? undefined : JSON.parse(row.value);
  };
  const contentHash = value("content_hash");
  const snapshots = value("snapshots");
  if (typeof contentHash !== "string" || !/^[0-9a-f]{64}$/.test(contentHash)) throw new Error(`${file}: the manifest has no valid content_hash`);
  if (typeof snapshots !== "object" || snapshots === null || Array.isArray(snapshots)) throw new Error(`${file}: the manifest has no snapshots entry`);
  return { contentHash, snapshots: snapshots as Record<string, string | null> };
}

/** A private copy of a snapshot file: the bytes served, which no other process rewrites. */
export interface SnapshotCopy {
  /** The copy, in a folder of mode 0700 of its own. */
  readonly file: string;
  /** The identity (fileIdentity) of the file copied, as it was before and after the copy. */
  readonly identity: string;
  /** Removes the copy's path; a connection already open on it keeps reading its inode. */
  discard(): Promise<void>;
}

/**
 * Copies the regular file at `file` into a private folder beside it (the same file system, so
 * the copy is a reflink where the file system has them), or in the system temp folder when that
 * folder is not writable. A memory-mapped file that another process truncates or rewrites
 * kills the process with SIGBUS or answers from a mix of two files; a private copy cannot be.
 * Never opens a FIFO, device, socket or folder (opening a FIFO for reading blocks until a writer
 * comes). Rejects when the file changed while being copied: the copy may mix two versions.
 */
export async function copySnapshot(file: string): Promise<SnapshotCopy> {
  _mustBeRegular(file, await fsp.stat(file, { bigint: true }).catch((error: unknown) => _missing(file, error)));
  // Non-blocking, in case a FIFO was renamed over the path since the stat; checked again on the descriptor.
  const source = await fsp.open(file, constants.O_RDONLY | constants.O_NONBLOCK).catch((error: unknown) => _missing(file, error));
  let folder: string | undefined;
  try {
    const before = await source.stat({ bigint: true });
    _mustBeRegular(file, before);
    folder = await fsp.mkdtemp(join(dirname(file), ".cei-serve-")).catch(() => fsp.mkdtemp(join(tmpdir(), "cei-serve-")));
    const copy = join(folder, "snapshot.db");
    // Linux names the open descriptor's inode: no path lookup between the check and the copy.
    const from = process.platform === "linux" ? `/proc/self/fd/${source.fd}` : file;
    await fsp.copyFile(from, copy, constants.COPYFILE_FICLONE);
    const after = await source.stat({ bigint: true });
    const copied = await fsp.stat(copy, { bigint: true });
    if (fileIdentity(after) !== fileIdentity(before) || copied.size !== before.size) throw new Error("it changed while being copied");
    const done = folder;
    folder = undefined;
    return { file: copy, identity: fileIdentity(before), discard: () => fsp.rm(done, { recursive: true, force: true }) };
  } finally {
    await source.close();
    if (folder !== undefined) await fsp.rm(folder, { recursive: true, force: true });
  }
}

/** Device, inode, size and modification and change times: a rename over the path, or a rewrite in place, changes it. */
export function fileIdentity(stat: BigIntStats): string {
  return `${stat.dev}:${stat.ino}:${stat.size}:${stat.mtimeNs}:${stat.ctimeNs}`;
}

function _mustBeRegular(file: string, stat: BigIntStats): void {
  if (stat.isFile()) return;
  const kind = stat.isDirectory() ? "a directory" : stat.isFIFO() ? "a FIFO" : stat.isSocket() ? "a socket"
    : stat.isCharacterDevice() || stat.isBlockDevice() ? "a device" : "not a regular file";
  throw new Error(`${file} is ${kind}, not a snapshot file`);
}

function _missing(file: string, error: unknown): never {
  if ((error as NodeJS.ErrnoException).code === "ENOENT") throw new Error(`${file}: no such file`);
  throw error;
}
