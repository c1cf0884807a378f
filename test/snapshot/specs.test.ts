// The diff specs against the snapshot's own tables (snapshot/schema.ts): the Markdown, the API types
// and the warnings read only what a spec declares, so a column named there that the table lacks, or
// a boolean or date column a spec forgets, would silently show a stored value or watch nothing.
import Database from "better-sqlite3";
import { afterAll, expect, test } from "vitest";
import { snapshotTables } from "../../snapshot/schema.ts";
import { familySpecs, rankingSpecs, type ColumnSpec } from "../../snapshot/specs.ts";

const db = new Database(":memory:");
db.exec(snapshotTables);
afterAll(() => db.close());

const columnsOf = (table: string) => (db.prepare("SELECT name FROM pragma_table_info(?)").all(table) as Array<{ name: string }>).map((c) => c.name);

/** Every table a spec describes, with what it declares about its columns. */
const described: Array<{ table: string; spec: ColumnSpec; named: string[] }> = [
  ...familySpecs.flatMap((f) => [
    { table: f.table, spec: f as ColumnSpec, named: [f.label, f.slug, ...(f.quiet ?? [])].filter((c): c is string => c !== undefined) },
    ...f.lists.map((l) => ({ table: l.table, spec: l as ColumnSpec, named: [l.parent, ...l.key] })),
  ]),
  ...rankingSpecs.flatMap((r) => [
    { table: r.table, spec: r as ColumnSpec, named: [...r.group, ...r.entry, "position"] },
    ...(r.summary === undefined ? [] : [{ table: r.summary.table, spec: r.summary as ColumnSpec, named: [] }]),
  ]),
];

test.each(described.map((d) => [d.table, d] as const))("%s: every column a spec names exists", (_table, { table, spec, named }) => {
  const columns = columnsOf(table);
  expect(columns.length).toBeGreaterThan(0);
  for (const column of [...named, ...Object.keys(spec.types ?? {}), ...(spec.amounts ?? [])]) expect(columns).toContain(column);
});

test.each(described.map((d) => [d.table, d] as const))("%s: booleans (is_*) and dates (*_at, *_date, as_of) are declared", (_table, { table, spec }) => {
  for (const column of columnsOf(table)) {
    if (/^is_/.test(column)) expect([column, spec.types?.[column]]).toEqual([column, "boolean"]);
    if (/(_at|_date)$|^as_of$/.test(column)) expect([column, ["date", "datetime"].includes(spec.types?.[column] ?? "")]).toEqual([column, true]);
  }
});
