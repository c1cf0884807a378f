// Scratch databases of a compile (staging, and the output before its rename): no journal, no
// syncing. They live on the output's file system, so that the final rename is atomic.
import { rmSync } from "node:fs";
import Database from "better-sqlite3";

export function openScratch(path: string): Database.Database {
  removeDatabase(path);
  const db = new Database(path);
  db.pragma("journal_mode = OFF");
  db.pragma("synchronous = OFF");
  db.pragma("cache_size = -8192");
  db.pragma("temp_store = FILE");
  return db;
}

export function removeDatabase(path: string): void {
  for (const suffix of ["", "-journal", "-wal", "-shm"]) rmSync(path + suffix, { force: true });
}
