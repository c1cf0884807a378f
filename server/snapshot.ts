// Opening the compiled snapshot for serving: read-only, must exist, and of the format this server reads.
import Database from "better-sqlite3";
import { SNAPSHOT_FORMAT_VERSION } from "../compiler/snapshot-schema.ts";

/** Address space, not memory: pages are shared with the OS page cache and read on demand. */
const SNAPSHOT_MMAP_BYTES = 1 << 30;

export function openSnapshot(file: string): Database.Database {
  const db = new Database(file, { readonly: true, fileMustExist: true });
  try {
    // The file never changes while served (a new compile is renamed over the path, a new inode).
    // Holding the shared lock and memory-mapping the file saves each statement the lock, unlock,
    // stat and read system calls that SQLite otherwise makes to detect a change: measured 8-15x
    // faster primary-key reads (docs/performance.md).
    db.pragma("locking_mode = EXCLUSIVE");
    db.pragma(`mmap_size = ${SNAPSHOT_MMAP_BYTES}`);
    const row = db.prepare<[], { value: string }>("SELECT value FROM manifest WHERE key = 'format_version'").get();
    const version = row === undefined ? undefined : (JSON.parse(row.value) as unknown);
    if (version !== SNAPSHOT_FORMAT_VERSION) {
      throw new Error(
        `${file} is a snapshot of format version ${String(version ?? "(none)")}, but this server reads version ` +
          `${SNAPSHOT_FORMAT_VERSION}; recompile it with this version of cei (cei compile).`,
      );
    }
    return db;
  } catch (error) {
    db.close();
    if (error instanceof Error && /no such table/.test(error.message)) {
      throw new Error(`${file} is not a cei snapshot (it has no manifest); compile one with cei compile.`);
    }
    throw error;
  }
}
