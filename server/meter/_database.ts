// Opening the meter file: pragmas first, then migrations. Shared by the Meter and by key management.
import Database from "better-sqlite3";
import { applyMigrations } from "./_migrations.ts";

export type MeterDatabase = Database.Database;

export interface OpenMeterOptions {
  /**
   * NORMAL (default): in WAL mode a commit is in the log before it returns, so a charge that was
   * answered survives any crash of the process; the last commits may be lost on power loss.
   * FULL also fsyncs every commit, surviving power loss, at about 2-3x the CPU per request on the
   * development VM (docs/performance.md).
   */
  synchronous?: "FULL" | "NORMAL";
  /** Refuse to create a new file (key management on a mistyped path should fail, not start afresh). */
  mustExist?: boolean;
  now?: () => number;
}

/** How long a writer waits for another process's transaction before failing with SQLITE_BUSY. */
export const BUSY_TIMEOUT_MS = 5_000;

export function openMeterDatabase(file: string, options: OpenMeterOptions = {}): MeterDatabase {
  // `timeout` is SQLite's busy_timeout: writers from other processes queue instead of failing.
  const db = new Database(file, { fileMustExist: options.mustExist ?? false, timeout: BUSY_TIMEOUT_MS });
  try {
    db.pragma("journal_mode = WAL");
    db.pragma(`synchronous = ${options.synchronous ?? "NORMAL"}`);
    db.pragma("foreign_keys = ON");
    applyMigrations(db, new Date((options.now ?? Date.now)()).toISOString());
    return db;
  } catch (error) {
    db.close();
    throw error;
  }
}
