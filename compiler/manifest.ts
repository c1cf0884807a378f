// Step 6d: the manifest, written last. content_hash covers every output table's rows in a
// fixed order and every manifest entry except compiled_at (and itself), so two compiles of the
// same data at different wall-clock times differ only in compiled_at.
import { createHash } from "node:crypto";
import { readFileSync } from "node:fs";
import Database from "better-sqlite3";
import { SNAPSHOT_FORMAT_VERSION } from "./snapshot-schema.ts";

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

/** Rows as JSON arrays built by SQLite, in primary-key order, streamed into the hash. */
function hashTables(db: Database.Database, tables: string[]): ReturnType<typeof createHash> {
  const hash = createHash("sha256");
  for (const table of tables) {
    const info = db.prepare("SELECT name, pk FROM pragma_table_info(?) ORDER BY cid").all(table) as Array<{ name: string; pk: number }>;
    const columns = info.map((c) => `"${c.name}"`);
    const keys = info.filter((c) => c.pk > 0).sort((a, b) => a.pk - b.pk).map((c) => `"${c.name}"`);
    const order = keys.length > 0 ? keys.join(", ") : columns.join(", ");
    hash.update(`table ${table} ${JSON.stringify(info.map((c) => c.name))}\n`);
    const rows = db.prepare(`SELECT json_array(${columns.join(", ")}) FROM main."${table}" ORDER BY ${order}`).pluck();
    let chunk = "";
    for (const row of rows.iterate() as IterableIterator<string>) {
      chunk += row + "\n";
      if (chunk.length > 65_536) {
        hash.update(chunk);
        chunk = "";
      }
    }
    hash.update(chunk);
  }
  return hash;
}

export interface ManifestInput {
  compiledAt: Date;
  excluded: Record<string, Record<string, number>>;
  xHandleSearchKey: string | null;
}

export function writeManifest(db: Database.Database, input: ManifestInput): Record<string, unknown> {
  const tables = dataTables(db);
  const rowCounts: Record<string, number> = {};
  for (const table of tables) rowCounts[table] = db.prepare(`SELECT count(*) FROM main."${table}"`).pluck().get() as number;
  const snapshots: Record<string, string | null> = {};
  for (const row of db.prepare("SELECT name, as_of FROM main.snapshots ORDER BY name").all() as Array<{ name: string; as_of: string | null }>) {
    snapshots[row.name] = row.as_of;
  }
  const entries: Record<string, unknown> = {
    format_version: SNAPSHOT_FORMAT_VERSION,
    compiler_version: COMPILER_VERSION,
    snapshots,
    row_counts: rowCounts,
    excluded: input.excluded,
    x_handle_search_key: input.xHandleSearchKey,
  };
  const hash = hashTables(db, tables);
  for (const key of Object.keys(entries).sort()) hash.update(`manifest ${key} ${JSON.stringify(entries[key])}\n`);
  const manifest: Record<string, unknown> = {
    ...entries,
    content_hash: hash.digest("hex"),
    compiled_at: input.compiledAt.toISOString(),
  };
  const insert = db.prepare("INSERT INTO main.manifest (key, value) VALUES (?, ?)");
  for (const key of Object.keys(manifest).sort()) insert.run(key, JSON.stringify(manifest[key]));
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
