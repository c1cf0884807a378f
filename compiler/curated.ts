// What the sources curate and what a compile drops, for the manifest (decision 28 and "what is
// published"): `curated` counts, by name, the valid records that carry each family and each kind
// of data an operation reads (each family's `curated`, define.ts); `not_published` counts, per
// family, the records (or list items) carrying each field the family accepts and never writes.
// Both read the staging databases, so they count records before eligibility: a hidden or stale
// record was still curated.
import type Database from "better-sqlite3";
import { families } from "./families/index.ts";
import { unpublishedPaths } from "./unpublished.ts";

/** Every name a family curates → its count, names sorted. */
export function curatedCounts(db: Database.Database): Record<string, number> {
  const counts = families.flatMap((family) => Object.entries(family.curated));
  const row = db.prepare(`SELECT ${counts.map(([name, sql]) => `${sql} AS "${name}"`).join(",\n  ")}`).get() as Record<string, number>;
  return Object.fromEntries(Object.keys(row).sort().map((name) => [name, row[name]!]));
}

/** Per family (in the families' order), each dropped field some record carries (in schema order) → how many. */
export function notPublishedCounts(db: Database.Database, stagingDatabases: readonly string[]): Record<string, Record<string, number>> {
  const rows = db.prepare(`SELECT family, path, sum(count) AS n FROM (${stagingDatabases.map((name) => `SELECT family, path, count FROM ${name}.unpublished`).join(" UNION ALL ")})
    GROUP BY family, path`).all() as Array<{ family: string; path: string; n: number }>;
  const out: Record<string, Record<string, number>> = {};
  for (const { family } of families) {
    const counts = new Map(rows.filter((row) => row.family === family).map((row) => [row.path, row.n]));
    if (counts.size === 0) continue;
    out[family] = Object.fromEntries(unpublishedPaths(family).filter((path) => counts.has(path)).map((path) => [path, counts.get(path)!]));
  }
  return out;
}
