// Row-level set differences computed by SQLite on one connection: the old file is `main`, the new
// one is attached as `newer`. Each table takes two passes in key order (new LEFT JOIN old for the
// added and changed rows, old NOT EXISTS new for the removed ones), streamed row by row, so only
// the differences ever reach JavaScript.
import type Database from "better-sqlite3";
import type { ValueType } from "./specs.ts";

export const OLD = "main";
export const NEW = "newer";

export type Row = Record<string, unknown>;
export interface FieldChange { old: unknown; new: unknown }

export interface RowDiff {
  added: Row[];
  removed: Row[];
  changed: Array<{ row: Row; fields: Record<string, FieldChange> }>;
}

const quote = (name: string) => `"${name.replaceAll('"', '""')}"`;

/** Whether both files hold the table (a table only one of them holds is left to the manifest's row counts). */
export function tableInBoth(db: Database.Database, table: string): boolean {
  const has = (schema: string) => db.prepare(`SELECT 1 FROM ${schema}.sqlite_schema WHERE type = 'table' AND name = ?`).get(table) !== undefined;
  return has(OLD) && has(NEW);
}

export function columnsOf(db: Database.Database, table: string): string[] {
  return (db.prepare(`SELECT name FROM pragma_table_info(?, '${NEW}') ORDER BY cid`).all(table) as Array<{ name: string }>).map((c) => c.name);
}

/**
 * Rows of `table` added, removed and changed between the two files, matched on `key`. Columns in
 * `ignore` are neither compared nor reported; every other column is compared with `IS` (exact,
 * NULL-safe), then reported as its API type (`types`: booleans, lists).
 */
export function diffRows(db: Database.Database, table: string, key: readonly string[], ignore: readonly string[] = [], types: Readonly<Record<string, ValueType>> = {}): RowDiff {
  const columns = columnsOf(db, table).filter((c) => !ignore.includes(c));
  const values = columns.filter((c) => !key.includes(c));
  const t = quote(table);
  const on = key.length === 0 ? "1" : key.map((k) => `o.${quote(k)} = n.${quote(k)}`).join(" AND ");
  const order = key.length === 0 ? "" : `ORDER BY ${key.map((k) => quote(k)).join(", ")}`;
  const oldValues = values.map((v, i) => `o.${quote(v)} AS "old ${i}"`);
  const differs = values.length === 0 ? "0" : values.map((v) => `o.${quote(v)} IS NOT n.${quote(v)}`).join(" OR ");
  const matched = key.length === 0 ? "o.rowid IS NOT NULL" : `o.${quote(key[0]!)} IS NOT NULL`;
  const forward = db.prepare(`
    SELECT ${[...columns.map((c) => `n.${quote(c)} AS ${quote(c)}`), ...oldValues, `${matched} AS "matched "`].join(", ")}
    FROM ${NEW}.${t} n LEFT JOIN ${OLD}.${t} o ON ${on}
    WHERE NOT (${matched}) OR ${differs}
    ${order}`);
  const diff: RowDiff = { added: [], removed: [], changed: [] };
  const api = apiValues(types);
  for (const raw of forward.iterate() as Iterable<Row>) {
    const row = Object.fromEntries(columns.map((c) => [c, api(c, raw[c])]));
    if (!raw["matched "]) {
      diff.added.push(row);
      continue;
    }
    const fields: Record<string, FieldChange> = {};
    values.forEach((v, i) => {
      const before = raw[`old ${i}`];
      if (before !== raw[v]) fields[v] = { old: api(v, before), new: row[v] };
    });
    diff.changed.push({ row, fields });
  }
  const removed = db.prepare(`
    SELECT ${columns.map((c) => `o.${quote(c)} AS ${quote(c)}`).join(", ")} FROM ${OLD}.${t} o
    WHERE NOT EXISTS (SELECT 1 FROM ${NEW}.${t} n WHERE ${on})
    ${order}`);
  for (const row of removed.iterate() as Iterable<Row>) diff.removed.push(Object.fromEntries(columns.map((c) => [c, api(c, row[c])])));
  return diff;
}

/**
 * A stored value as the API serves it: a boolean for 0/1, an array for a list's JSON text. Dates
 * stay the ISO text the API serves; NULL stays null.
 */
export function apiValues(types: Readonly<Record<string, ValueType>>): (column: string, value: unknown) => unknown {
  return (column, value) => {
    if (value === null || value === undefined) return value;
    const type = types[column];
    if (type === "boolean") return value === 1;
    if (type === "list") return JSON.parse(value as string) as unknown;
    return value;
  };
}

/** Code-unit order: the same on every machine and locale (SQLite's BINARY collation for ASCII ids). */
export function compareIds(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}
