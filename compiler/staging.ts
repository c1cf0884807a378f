// Step 2: the typed staging tables. Each valid record is flattened in JS (by its family's
// `staging.rows`, on the thread staging its family) into one row per record and per nested list
// item, so that checks, eligibility and output are plain SQL over indexed columns.
//
// Values keep SQLite's JSON semantics: booleans are 0/1, absent or null values are NULL, and
// date-times are normalised to milliseconds by SQLite's own strftime at insert time.
import type { ColumnType, FamilyDefinition, Json } from "./families/define.ts";
import { familyNamed, families } from "./families/index.ts";

/**
 * The table of a referenced family's records that failed validation, by the id they carry: they
 * still exist for the reference checks, so that one mistake is reported once, not at every reference.
 */
export const invalidTableOf = (family: FamilyDefinition): string | undefined =>
  family.reference === undefined ? undefined : `${family.reference.table}_invalid`;

const invalidColumns: Record<string, ColumnType> = { line: "INTEGER", id: "TEXT" };

/** The staging tables of a family, in creation order: its own, then its invalid records'. */
function tablesOf(family: FamilyDefinition): Array<[string, Record<string, ColumnType>]> {
  const invalid = invalidTableOf(family);
  return [...Object.entries(family.staging.tables), ...(invalid === undefined ? [] : [[invalid, invalidColumns] as [string, Record<string, ColumnType>]])];
}

/** Every staging table → its columns, in the order the family's rows give values. */
const tables = new Map(families.flatMap(tablesOf).map(([table, columns]) => [table, Object.entries(columns)]));

/** ISO 8601 UTC with milliseconds, e.g. 2026-03-01T12:00:00.000Z. */
const isoMs = (expr: string): string => `strftime('%Y-%m-%dT%H:%M:%fZ', ${expr})`;

const columnsOf = (table: string): Array<[string, ColumnType]> => {
  const columns = tables.get(table);
  if (columns === undefined) throw new Error(`unknown staging table ${table}`);
  return columns;
};

/**
 * The problems tables: every staging database has them (validation problems; the main one also
 * gets the checks'). `problem_overflow` counts, by kind, the problems found but not kept
 * (problem-report.ts): a lane keeps only the first few of each kind.
 */
export const problemsDdl =
  "CREATE TABLE problems (seq INTEGER PRIMARY KEY, file TEXT NOT NULL, line INTEGER NOT NULL, path TEXT NOT NULL, message TEXT NOT NULL);\n" +
  "CREATE TABLE problem_overflow (kind TEXT NOT NULL, count INTEGER NOT NULL);";

/** Every staging database counts, per family, the valid records carrying each field it accepts and drops (unpublished.ts). */
export const unpublishedDdl = "CREATE TABLE unpublished (family TEXT NOT NULL, path TEXT NOT NULL, count INTEGER NOT NULL);";

/** The staging tables of one family. */
export function stagingDdl(family: string): string {
  return tablesOf(familyNamed(family))
    .map(([t, columns]) => `CREATE TABLE ${t} (${Object.entries(columns).map(([name, type]) => `${name} ${type === "DATETIME" ? "TEXT" : type}`).join(", ")});`)
    .join("\n");
}

/** Run once a family's rows are all in: the indexes of every later join. */
export function stagingIndexSql(family: string): string {
  const definition = familyNamed(family);
  const invalid = invalidTableOf(definition);
  return invalid === undefined ? definition.staging.indexSql : `${definition.staging.indexSql}\nCREATE INDEX ${invalid}_id ON ${invalid} (id);`;
}

/** How many values one row of `table` has. */
export const stagingWidth = (table: string): number => columnsOf(table).length;

/** `INSERT` of `rows` rows at once into `table`; date-time columns go through strftime. */
export function stagingInsertSql(table: string, rows: number): string {
  const one = `(${columnsOf(table).map(([, type]) => (type === "DATETIME" ? isoMs("?") : "?")).join(", ")})`;
  return `INSERT INTO ${table} VALUES ${Array.from({ length: rows }, () => one).join(", ")}`;
}

/** Rows of one batch, per table: each table's rows concatenated, `stagingWidth(table)` values each. */
export type StagingRows = Record<string, unknown[]>;

/**
 * Appends the staging rows of one valid record (zod's output, defaults applied) to `out`.
 * `xid` and `handleHash` are the keyed X ids of the handle the record names, if any.
 */
export function stagingRows(family: FamilyDefinition, r: Json, line: number, xid: string | null, handleHash: string | null, out: StagingRows): void {
  family.staging.rows(r, line, (table) => (out[table] ??= []), xid, handleHash);
}
