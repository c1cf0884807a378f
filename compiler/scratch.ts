// Scratch databases of a compile (staging, and the output before its rename): no journal, no
// syncing. They live in a private folder (0700) beside the output, so that the final rename is
// atomic and nobody else can read the hidden records they hold. The folder is named after the
// output and the compiling process, so that a later compile can remove what a killed one left.
import { chmodSync, mkdirSync, readdirSync, rmSync } from "node:fs";
import { basename, dirname, join } from "node:path";
import Database from "better-sqlite3";

const SCRATCH_MARK = ".cei-scratch-";

/** The scratch folder of a compile of `outFile` by process `pid`. */
export function scratchDirFor(outFile: string, pid: number = process.pid): string {
  return join(dirname(outFile), `.${basename(outFile)}${SCRATCH_MARK}${pid}`);
}

const isRunning = (pid: number): boolean => {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === "EPERM";
  }
};

/** Removes the scratch folders of compiles of `outFile` whose process is gone (killed mid-way). */
export function removeStaleScratch(outFile: string): void {
  const prefix = `.${basename(outFile)}${SCRATCH_MARK}`;
  let names: string[];
  try {
    names = readdirSync(dirname(outFile));
  } catch {
    return;
  }
  for (const name of names) {
    if (!name.startsWith(prefix)) continue;
    const pid = Number(name.slice(prefix.length));
    if (Number.isInteger(pid) && pid > 0 && pid !== process.pid && !isRunning(pid)) {
      rmSync(join(dirname(outFile), name), { recursive: true, force: true });
    }
  }
}

/** Creates this compile's private scratch folder, afresh. */
export function createScratchDir(dir: string): void {
  rmSync(dir, { recursive: true, force: true });
  mkdirSync(dir, { mode: 0o700 });
  chmodSync(dir, 0o700); // whatever the umask

}

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
