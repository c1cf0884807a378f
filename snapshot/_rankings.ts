// Per precomputed snapshot: entries that entered, left, moved (old and new position) or whose
// other values changed, and the snapshot's `as_of` change. Tables split by a group (trending days,
// mover periods) give one snapshot per group, named `<name>/<group values>`.
import type Database from "better-sqlite3";
import { compareIds, diffRows, tableInBoth, type FieldChange, type Row } from "./_rows.ts";
import { MARKET_SUMMARY_TABLE, rankingSpecs, type RankingSpec } from "./specs.ts";

export interface RankingDiff {
  as_of: FieldChange | null;
  entered: Array<{ id: string; position: number }>;
  left: Array<{ id: string; position: number }>;
  /** `by` is old minus new position: positive when the entry rose. */
  moved: Array<{ id: string; old: number; new: number; by: number }>;
  changed: Array<{ id: string; fields: Record<string, FieldChange> }>;
  /** The market's summary values (totals, BTC and ETH figures); empty for other snapshots. */
  summary: Record<string, FieldChange>;
}

const emptyDiff = (): RankingDiff => ({ as_of: null, entered: [], left: [], moved: [], changed: [], summary: {} });

export function diffRankings(db: Database.Database): Record<string, RankingDiff> {
  const snapshotAsOf = _asOfChanges(db, "snapshots", "name");
  const dayAsOf = _asOfChanges(db, "trending_days", "day");
  const result: Record<string, RankingDiff> = {};
  for (const spec of rankingSpecs) {
    const groups = new Map<string, RankingDiff>();
    const group = (name: string) => {
      let diff = groups.get(name);
      if (diff === undefined) groups.set(name, (diff = emptyDiff()));
      return diff;
    };
    if (spec.asOf === "trending_days") for (const [day, change] of dayAsOf) group(`${spec.name}/${day}`).as_of = change;
    else if (spec.asOf !== null && snapshotAsOf.has(spec.asOf.snapshot)) group(spec.name).as_of = snapshotAsOf.get(spec.asOf.snapshot)!;
    if (tableInBoth(db, spec.table)) _entries(db, spec, group);
    if (spec.name === "market") {
      const summary = _marketSummary(db);
      if (Object.keys(summary).length > 0) group(spec.name).summary = summary;
    }
    for (const name of [...groups.keys()].sort(compareIds)) result[name] = groups.get(name)!;
  }
  return result;
}

function _entries(db: Database.Database, spec: RankingSpec, group: (name: string) => RankingDiff): void {
  const rows = diffRows(db, spec.table, [...spec.group, ...spec.entry]);
  const nameOf = (row: Row) => (spec.group.length === 0 ? spec.name : `${spec.name}/${spec.group.map((g) => String(row[g])).join("/")}`);
  const idOf = (row: Row) => spec.entry.map((e) => String(row[e])).join(":");
  for (const row of rows.added) group(nameOf(row)).entered.push({ id: idOf(row), position: Number(row.position) });
  for (const row of rows.removed) group(nameOf(row)).left.push({ id: idOf(row), position: Number(row.position) });
  for (const { row, fields } of rows.changed) {
    const diff = group(nameOf(row));
    const { position, ...others } = fields;
    if (position !== undefined) {
      const [before, after] = [Number(position.old), Number(position.new)];
      diff.moved.push({ id: idOf(row), old: before, new: after, by: before - after });
    }
    if (Object.keys(others).length > 0) diff.changed.push({ id: idOf(row), fields: others });
  }
  for (const name of new Set([...rows.added, ...rows.removed, ...rows.changed.map((c) => c.row)].map(nameOf))) {
    const d = group(name);
    d.entered.sort((a, b) => a.position - b.position);
    d.left.sort((a, b) => a.position - b.position);
    d.moved.sort((a, b) => a.new - b.new);
    d.changed.sort((a, b) => compareIds(a.id, b.id));
  }
}

/** The market's one summary row, field by field; a row only one file holds changes from or to null. */
function _marketSummary(db: Database.Database): Record<string, FieldChange> {
  const summary: Record<string, FieldChange> = {};
  if (!tableInBoth(db, MARKET_SUMMARY_TABLE)) return summary;
  const rows = diffRows(db, MARKET_SUMMARY_TABLE, []);
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
