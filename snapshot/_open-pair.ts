// Opening the two files for a diff, with our own sentence for every way they can be unfit: missing,
// not SQLite, not a cei snapshot, or snapshots of two different format versions.
import { closeSync, openSync, readSync, statSync } from "node:fs";
import Database from "better-sqlite3";
import { NEW } from "./_rows.ts";

/** A pair that cannot be compared: the CLI prints the message and exits 2. */
export class SnapshotDiffError extends Error {}

const SQLITE_HEADER = "SQLite format 3\0";

/** The manifest, values parsed from JSON; keys are read generically so new or removed keys never break the diff. */
export function readSnapshotManifest(file: string): Record<string, unknown> {
  let isFile = false;
  try {
    isFile = statSync(file).isFile();
  } catch {
    throw new SnapshotDiffError(`${file}: no such file`);
  }
  if (!isFile) throw new SnapshotDiffError(`${file}: not a file`);
  let header: string;
  try {
    header = _header(file);
  } catch (error) {
    throw new SnapshotDiffError(`${file}: cannot be read (${(error as NodeJS.ErrnoException).code ?? (error as Error).message})`);
  }
  if (header !== SQLITE_HEADER) throw new SnapshotDiffError(`${file}: not a cei snapshot (not an SQLite database)`);
  const db = new Database(file, { readonly: true, fileMustExist: true });
  try {
    const rows = db.prepare("SELECT key, value FROM manifest ORDER BY key").all() as Array<{ key: string; value: string }>;
    const manifest = Object.fromEntries(rows.map((r) => [r.key, JSON.parse(r.value) as unknown]));
    if (typeof manifest.format_version !== "number") throw new Error("no format_version");
    return manifest;
  } catch {
    throw new SnapshotDiffError(`${file}: not a cei snapshot (no manifest with a format_version)`);
  } finally {
    db.close();
  }
}

/** One read-only connection: the old file as `main`, the new one attached (read-only too, as attached files inherit it). */
export function openPair(oldFile: string, newFile: string): Database.Database {
  const db = new Database(oldFile, { readonly: true, fileMustExist: true });
  try {
    db.prepare(`ATTACH DATABASE ? AS ${NEW}`).run(newFile);
    return db;
  } catch (error) {
    db.close();
    throw error;
  }
}

function _header(file: string): string {
  const buffer = Buffer.alloc(SQLITE_HEADER.length);
  const fd = openSync(file, "r");
  try {
    const read = readSync(fd, buffer, 0, buffer.length, 0);
    return buffer.subarray(0, read).toString("latin1");
  } finally {
    closeSync(fd);
  }
}
