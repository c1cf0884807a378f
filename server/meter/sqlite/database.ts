// Opening the meter file: pragmas first, then migrations. Shared by the Meter and by key management.
// The meter holds key hashes, balances and the ledger: its files are private to their owner.
import { chmodSync, closeSync, existsSync, openSync, statSync } from "node:fs";
import Database from "better-sqlite3";
import { applyMigrations } from "./migrations.ts";

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
  /** Where a warning about the file's permissions goes (default: one line on stderr). */
  warn?: (message: string) => void;
  /** Told which schema versions the open went from and to (the key store audits a migration). */
  migrated?: (versions: { from: number; to: number }) => void;
}

/** Permission bits of a file that group or others hold. */
const OTHERS_BITS = 0o077;
const PRIVATE_MODE = 0o600;

/**
 * Creates the meter file 0600 whatever the umask (SQLite then creates -wal and -shm with the
 * same mode), and warns when an existing file can be read by group or others.
 */
function preparePrivateFile(file: string, options: OpenMeterOptions): void {
  if (!existsSync(file)) {
    if (options.mustExist) return; // better-sqlite3 gives its own "does not exist" error
    try {
      closeSync(openSync(file, "wx", PRIVATE_MODE));
      chmodSync(file, PRIVATE_MODE);
      return;
    } catch (error) {
      // Another process created it meanwhile: check it as an existing file.
      if ((error as NodeJS.ErrnoException).code !== "EEXIST") throw error;
    }
  }
  for (const path of [file, `${file}-wal`, `${file}-shm`]) {
    if (!existsSync(path)) continue;
    const mode = statSync(path).mode & 0o777;
    if ((mode & OTHERS_BITS) === 0) continue;
    (options.warn ?? ((m: string) => process.stderr.write(`${m}\n`)))(
      `warning: meter file ${path} has mode ${mode.toString(8).padStart(4, "0")}: group or others can read key hashes and balances; run chmod 600 ${path}`,
    );
  }
}

/** How long a writer waits for another process's transaction before failing with SQLITE_BUSY. */
export const BUSY_TIMEOUT_MS = 5_000;

export function openMeterDatabase(file: string, options: OpenMeterOptions = {}): MeterDatabase {
  preparePrivateFile(file, options);
  // `timeout` is SQLite's busy_timeout: writers from other processes queue instead of failing.
  const db = new Database(file, { fileMustExist: options.mustExist ?? false, timeout: BUSY_TIMEOUT_MS });
  try {
    db.pragma("journal_mode = WAL");
    db.pragma(`synchronous = ${options.synchronous ?? "NORMAL"}`);
    db.pragma("foreign_keys = ON");
    const versions = applyMigrations(db, new Date((options.now ?? Date.now)()).toISOString());
    options.migrated?.(versions);
    return db;
  } catch (error) {
    db.close();
    throw error;
  }
}
