// Per family: records added, removed and changed by id; a changed record lists its changed fields
// and, per nested list, the items added, removed and changed. The lists of an added or removed
// record are part of that record and are not repeated.
import type Database from "better-sqlite3";
import { compareIds, diffRows, tableInBoth, type FieldChange, type Row } from "./_rows.ts";
import type { FamilySpec, ListSpec } from "./specs.ts";

export interface ListDiff {
  added: Array<{ id: string; item: Row }>;
  removed: Array<{ id: string; item: Row }>;
  changed: Array<{ id: string; fields: Record<string, FieldChange> }>;
}

export interface RecordChange {
  id: string;
  fields: Record<string, FieldChange>;
  lists: Record<string, ListDiff>;
}

export interface FamilyDiff {
  added: Array<{ id: string; record: Row }>;
  removed: Array<{ id: string; record: Row }>;
  changed: RecordChange[];
}

export function diffFamily(db: Database.Database, spec: FamilySpec): FamilyDiff {
  if (!tableInBoth(db, spec.table)) return { added: [], removed: [], changed: [] };
  const rows = diffRows(db, spec.table, ["id"], [], spec.types);
  const added = rows.added.map((record) => ({ id: String(record.id), record }));
  const removed = rows.removed.map((record) => ({ id: String(record.id), record }));
  const wholeRecord = new Set([...added, ...removed].map((r) => r.id));
  const changed = new Map<string, RecordChange>();
  const entry = (id: string): RecordChange => {
    let change = changed.get(id);
    if (change === undefined) changed.set(id, (change = { id, fields: {}, lists: {} }));
    return change;
  };
  for (const { row, fields } of rows.changed) entry(String(row.id)).fields = fields;
  for (const list of spec.lists) {
    if (!tableInBoth(db, list.table)) continue;
    const key = [list.parent, ...list.key];
    const items = diffRows(db, list.table, key, list.key.includes("position") ? [] : ["position"], list.types);
    const listOf = (row: Row): ListDiff | null => {
      const parent = String(row[list.parent]);
      if (wholeRecord.has(parent)) return null;
      const lists = entry(parent).lists;
      return (lists[list.name] ??= { added: [], removed: [], changed: [] });
    };
    for (const row of items.added) listOf(row)?.added.push({ id: _itemId(list, row), item: _withoutParent(list, row) });
    for (const row of items.removed) listOf(row)?.removed.push({ id: _itemId(list, row), item: _withoutParent(list, row) });
    for (const { row, fields } of items.changed) listOf(row)?.changed.push({ id: _itemId(list, row), fields });
  }
  const sortedChanges = [...changed.values()].sort((a, b) => compareIds(a.id, b.id));
  for (const change of sortedChanges) change.lists = _inListOrder(spec, change.lists);
  return { added, removed, changed: sortedChanges };
}

/** How an item's field is named in outputs: `features[feat_x].status`, or `tvl.tvl_usd` for a one-row attachment. */
export function itemField(list: ListSpec, itemId: string, field: string): string {
  return list.key.length === 0 ? `${list.name}.${field}` : `${list.name}[${itemId}].${field}`;
}

/** The item's key values (`#3` for a position), or the list's name for a one-row attachment. */
function _itemId(list: ListSpec, row: Row): string {
  if (list.key.length === 0) return list.name;
  return list.key.map((k) => (k === "position" ? `#${String(row[k])}` : String(row[k]))).join(":");
}

function _withoutParent(list: ListSpec, row: Row): Row {
  return Object.fromEntries(Object.entries(row).filter(([column]) => column !== list.parent));
}

function _inListOrder(spec: FamilySpec, lists: Record<string, ListDiff>): Record<string, ListDiff> {
  return Object.fromEntries(spec.lists.filter((l) => lists[l.name] !== undefined).map((l) => [l.name, lists[l.name]!]));
}
