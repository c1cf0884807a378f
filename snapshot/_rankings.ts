// Per precomputed snapshot: entries that entered, left, moved (old and new position) or whose
// other values changed, and the snapshot's `as_of` change. Tables split by a group (trending days,
// mover periods) give one snapshot per group, named `<name>/<group values>`.
import type Database from "better-sqlite3";
import { displacedEntries } from "./_displaced.ts";
import { compareIds, diffRows, NEW, OLD, tableInBoth, type FieldChange, type Row } from "./_rows.ts";
import { rankingSpecs, type RankingSpec } from "./specs.ts";

export interface RankingDiff {
  as_of: FieldChange | null;
  /** How many entries the snapshot holds in each file. */
  entries: { old: number; new: number };
  entered: Array<{ id: string; position: number }>;
  left: Array<{ id: string; position: number }>;
  /**
   * `by` is old minus new position: positive when the entry rose. `displaced`: the entry left its
   * place among the others (it is not in the longest run of entries that kept their order), rather
   * than being shifted by entries entering, leaving or moving past it.
   */
  moved: Array<{ id: string; old: number; new: number; by: number; displaced: boolean }>;
  changed: Array<{ id: string; fields: Record<string, FieldChange> }>;
  /** The snapshot's summary values (the market's totals, BTC and ETH figures); empty for others. */
  summary: Record<string, FieldChange>;
}

const emptyDiff = (): RankingDiff => ({ as_of: null, entries: { old: 0, new: 0 }, entered: [], left: [], moved: [], changed: [], summary: {} });

export function diffRankings(db: Database.Database): Record<string, RankingDiff> {
  const snapshotAsOf = _asOfChanges(db, "snapshots", "name");
  const dayAsOf = _asOfChanges(db, "trending_days", "day");
  const result: Record<string, RankingDiff> = {};
  for (const spec of rankingSpecs) {
    const groups = new Map<string, { values: unknown[]; diff: RankingDiff }>();
    const group = (values: unknown[]) => {
      const name = spec.group.length === 0 ? spec.name : `${spec.name}/${values.map(String).join("/")}`;
      let found = groups.get(name);
      if (found === undefined) groups.set(name, (found = { values, diff: emptyDiff() }));
      return found.diff;
    };
    if (spec.asOf === "trending_days") for (const [day, change] of dayAsOf) group([day]).as_of = change;
    else if (spec.asOf !== null && snapshotAsOf.has(spec.asOf.snapshot)) group([]).as_of = snapshotAsOf.get(spec.asOf.snapshot)!;
    const inBoth = tableInBoth(db, spec.table);
    if (inBoth) _entries(db, spec, group);
    if (spec.summary !== undefined) {
      const summary = _summary(db, spec.summary);
      if (Object.keys(summary).length > 0) group([]).summary = summary;
    }
    for (const name of [...groups.keys()].sort(compareIds)) {
      const { values, diff } = groups.get(name)!;
      if (inBoth) _order(db, spec, values, diff);
      result[name] = diff;
    }
  }
  return result;
}

function _entries(db: Database.Database, spec: RankingSpec, group: (values: unknown[]) => RankingDiff): void {
  const rows = diffRows(db, spec.table, [...spec.group, ...spec.entry], [], spec.types);
  const of = (row: Row) => group(spec.group.map((g) => row[g]));
  const idOf = (row: Row) => spec.entry.map((e) => String(row[e])).join(":");
  for (const row of rows.added) of(row).entered.push({ id: idOf(row), position: Number(row.position) });
  for (const row of rows.removed) of(row).left.push({ id: idOf(row), position: Number(row.position) });
  for (const { row, fields } of rows.changed) {
    const diff = of(row);
    const { position, ...others } = fields;
    if (position !== undefined) {
      const [before, after] = [Number(position.old), Number(position.new)];
      diff.moved.push({ id: idOf(row), old: before, new: after, by: before - after, displaced: false });
    }
    if (Object.keys(others).length > 0) diff.changed.push({ id: idOf(row), fields: others });
  }
}

/**
 * Sorts a changed snapshot's lists, counts its entries in each file and marks the displaced moves.
 * Snapshots hold at most a few hundred entries, so both orders are read whole.
 */
function _order(db: Database.Database, spec: RankingSpec, values: unknown[], diff: RankingDiff): void {
  const where = spec.group.length === 0 ? "" : `WHERE ${spec.group.map((g) => `"${g}" = ?`).join(" AND ")}`;
  const ids = (schema: string) => (db.prepare(`SELECT ${spec.entry.map((e) => `"${e}"`).join(" || ':' || ")} AS id FROM ${schema}."${spec.table}" ${where} ORDER BY position`)
    .all(...values) as Array<{ id: string }>).map((r) => r.id);
  const [before, after] = [ids(OLD), ids(NEW)];
  diff.entries = { old: before.length, new: after.length };
  const displaced = displacedEntries(before, after);
  for (const move of diff.moved) move.displaced = displaced.has(move.id);
  diff.entered.sort((a, b) => a.position - b.position);
  diff.left.sort((a, b) => a.position - b.position);
  diff.moved.sort((a, b) => a.new - b.new);
  diff.changed.sort((a, b) => compareIds(a.id, b.id));
}

/** A one-row summary table, field by field; a row only one file holds changes from or to null. */
function _summary(db: Database.Database, spec: NonNullable<RankingSpec["summary"]>): Record<string, FieldChange> {
  const summary: Record<string, FieldChange> = {};
  if (!tableInBoth(db, spec.table)) return summary;
  const rows = diffRows(db, spec.table, [], [], spec.types);
  for (const row of rows.added) for (const [field, value] of Object.entries(row)) summary[field] = { old: null, new: value };
  for (const row of rows.removed) for (const [field, value] of Object.entries(row)) summary[field] = { old: value, new: null };
  for (const { fields } of rows.changed) Object.assign(summary, fields);
  return summary;
}

/** `as_of` changes of a (key, as_of) table; a row only one file holds changes from or to null. */
function _asOfChanges(db: Database.Database, table: string, key: string): Map<string, FieldChange> {
  const changes = new Map<string, FieldChange>();
  if (!tableInBoth(db, table)) return changes;
  const rows = diffRows(db, table, [key]);
  for (const row of rows.added) changes.set(String(row[key]), { old: null, new: row.as_of ?? null });
  for (const row of rows.removed) changes.set(String(row[key]), { old: row.as_of ?? null, new: null });
  for (const { row, fields } of rows.changed) if (fields.as_of !== undefined) changes.set(String(row[key]), fields.as_of);
  return changes;
}
