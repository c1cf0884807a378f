// Step 6d: the manifest, written last. content_hash covers the committed data file and every
// other manifest entry. No wall-clock time is written (decision 22): the same sources and
// options give the same bytes.
import { createHash } from "node:crypto";
import { closeSync, openSync, readFileSync, readSync } from "node:fs";
import Database from "better-sqlite3";
import { SNAPSHOT_FORMAT_VERSION } from "../snapshot/schema.ts";

const packageJson = JSON.parse(readFileSync(new URL("../package.json", import.meta.url), "utf8")) as { version: string };
export const COMPILER_VERSION = packageJson.version;

/** Output tables, excluding the manifest and the FTS index (derived from search_keys). */
export function dataTables(db: Database.Database): string[] {
  return db
    .prepare(
      "SELECT name FROM main.sqlite_schema WHERE type = 'table' AND name <> 'manifest' AND name NOT LIKE 'search_fts%' AND name NOT LIKE 'sqlite_%' ORDER BY name",
    )
    .pluck()
    .all() as string[];
}

export interface ManifestInput {
  excluded: Record<string, Record<string, number>>;
  /** What the sources curate, by name (curated.ts): 0 means an operation fed by it is not offered (decision 28). */
  curated: Record<string, number>;
  /** Per family, the accepted fields dropped as never written, with the records carrying each (curated.ts). */
  notPublished: Record<string, Record<string, number>>;
}

/** Every manifest entry except content_hash and reference_time, read while the data transaction is open. */
export function manifestEntries(db: Database.Database, input: ManifestInput): Record<string, unknown> {
  const rowCounts: Record<string, number> = {};
  for (const table of dataTables(db)) rowCounts[table] = db.prepare(`SELECT count(*) FROM main."${table}"`).pluck().get() as number;
  const snapshots: Record<string, string | null> = {};
  for (const row of db.prepare("SELECT name, as_of FROM main.snapshots ORDER BY name").all() as Array<{ name: string; as_of: string | null }>) {
    snapshots[row.name] = row.as_of;
  }
  return {
    format_version: SNAPSHOT_FORMAT_VERSION,
    compiler_version: COMPILER_VERSION,
    snapshots,
    row_counts: rowCounts,
    excluded: input.excluded,
    curated: input.curated,
    not_published: input.notPublished,
  };
}

/**
 * sha256 of the committed file's bytes, before any manifest row exists, then of the entries.
 * The file is byte-identical for the same data and options. (Hashing the
 * rows one by one gave the same guarantee at about 25% of the whole compile time at 1M records.)
 */
export function contentHash(file: string, entries: Record<string, unknown>): string {
  const hash = createHash("sha256");
  const buffer = Buffer.allocUnsafe(1 << 20);
  const fd = openSync(file, "r");
  try {
    for (let read = readSync(fd, buffer); read > 0; read = readSync(fd, buffer)) hash.update(buffer.subarray(0, read));
  } finally {
    closeSync(fd);
  }
  for (const key of Object.keys(entries).sort()) hash.update(`manifest ${key} ${JSON.stringify(entries[key])}\n`);
  return hash.digest("hex");
}

/** Writes the manifest rows: the entries and the content hash. */
export function writeManifest(db: Database.Database, entries: Record<string, unknown>, hash: string): Record<string, unknown> {
  const manifest: Record<string, unknown> = { ...entries, content_hash: hash };
  const insert = db.prepare("INSERT INTO main.manifest (key, value) VALUES (?, ?)");
  db.transaction(() => {
    for (const key of Object.keys(manifest).sort()) insert.run(key, JSON.stringify(manifest[key]));
  })();
  return manifest;
}

/** The manifest of a compiled snapshot, values parsed from JSON. */
export function readManifest(file: string): Record<string, unknown> {
  const db = new Database(file, { readonly: true, fileMustExist: true });
  try {
    const rows = db.prepare("SELECT key, value FROM manifest ORDER BY key").all() as Array<{ key: string; value: string }>;
    return Object.fromEntries(rows.map((r) => [r.key, JSON.parse(r.value) as unknown]));
  } finally {
    db.close();
  }
}
