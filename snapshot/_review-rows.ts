// The diff as rows a reviewer reads, one change per row (a record added or removed, a field, a
// list item, a ranking entry, a manifest entry), each marked significant or not from what the specs
// declare: what is curated is significant; what is derived or observed (`quiet` columns, lists and
// snapshots, as_of times, the manifest) is not, unless a warning names its record, entry or
// snapshot. The Markdown shows the significant rows first and folds the others.
import { itemField } from "./_families.ts";
import type { Row } from "./_rows.ts";
import type { RankingDiff, SnapshotDiff } from "./diff.ts";
import { familySpecs, rankingSpecs, type FamilySpec, type ValueType } from "./specs.ts";

/** A value with its type; `undefined` is an empty cell. */
export interface Cell {
  value: unknown;
  type?: ValueType | undefined;
}

export interface ChangeRow {
  /** `+` added or entered, `-` removed or left, `~` changed, `↑`/`↓` moved. */
  mark: string;
  id: string;
  field: string;
  old?: Cell;
  new?: Cell;
  significant: boolean;
}

export interface Section {
  /** A family, a snapshot, or `manifest`. */
  name: string;
  rows: ChangeRow[];
}

export function reviewSections(diff: SnapshotDiff): Section[] {
  const warned = new Set(diff.warnings.map((w) => (w.id === null ? w.subject : `${w.subject}\u0000${w.id}`)));
  const isWarned = (section: string, id: string) => warned.has(section) || warned.has(`${section}\u0000${id}`);
  const sections = [
    ...familySpecs.map((spec) => ({ name: spec.name, rows: _familyRows(spec, diff) })),
    ...Object.entries(diff.snapshots).map(([name, snapshot]) => ({ name, rows: _snapshotRows(name, snapshot) })),
    // The content hashes head the document already.
    { name: "manifest", rows: diff.manifest.filter((c) => c.key !== "content_hash").map((c): ChangeRow => ({ mark: "~", id: "", field: c.key, old: { value: c.old }, new: { value: c.new }, significant: false })) },
  ].filter((section) => section.rows.length > 0);
  for (const section of sections) for (const row of section.rows) row.significant ||= isWarned(section.name, row.id);
  return sections;
}

function _familyRows(spec: FamilySpec, diff: SnapshotDiff): ChangeRow[] {
  const family = diff.families[spec.name];
  if (family === undefined) return [];
  const label = (record: Row): Cell | undefined => (spec.label === undefined ? undefined : { value: record[spec.label] });
  const rows: ChangeRow[] = [
    ...family.added.map(({ id, record }): ChangeRow => ({ mark: "+", id, field: "", new: label(record), significant: true })),
    ...family.removed.map(({ id, record }): ChangeRow => ({ mark: "-", id, field: "", old: label(record), significant: true })),
  ];
  for (const change of family.changed) {
    for (const [field, c] of Object.entries(change.fields)) {
      rows.push({ mark: "~", id: change.id, field, old: { value: c.old, type: spec.types?.[field] }, new: { value: c.new, type: spec.types?.[field] }, significant: !(spec.quiet ?? []).includes(field) });
    }
    for (const list of spec.lists) {
      const items = change.lists[list.name];
      if (items === undefined) continue;
      const significant = list.quiet !== true;
      const name = (itemId: string) => (list.key.length === 0 ? list.name : `${list.name}[${itemId}]`);
      for (const { id, item } of items.added) rows.push({ mark: "+", id: change.id, field: name(id), new: { value: _withoutKey(item, list.key) }, significant });
      for (const { id, item } of items.removed) rows.push({ mark: "-", id: change.id, field: name(id), old: { value: _withoutKey(item, list.key) }, significant });
      for (const { id, fields } of items.changed) {
        for (const [field, c] of Object.entries(fields)) {
          rows.push({ mark: "~", id: change.id, field: itemField(list, id, field), old: { value: c.old, type: list.types?.[field] }, new: { value: c.new, type: list.types?.[field] }, significant });
        }
      }
    }
  }
  return rows;
}

function _snapshotRows(name: string, s: RankingDiff): ChangeRow[] {
  const spec = rankingSpecs.find((r) => r.name === name.split("/")[0]);
  const significant = spec?.quiet !== true;
  const position = (value: number): Cell => ({ value });
  const rows: ChangeRow[] = [];
  if (s.as_of !== null) rows.push({ mark: "~", id: "", field: "as_of", old: { value: s.as_of.old, type: "datetime" }, new: { value: s.as_of.new, type: "datetime" }, significant: false });
  for (const e of s.entered) rows.push({ mark: "+", id: e.id, field: "position", new: position(e.position), significant });
  for (const e of s.left) rows.push({ mark: "-", id: e.id, field: "position", old: position(e.position), significant });
  for (const m of s.moved) rows.push({ mark: m.by > 0 ? "↑" : "↓", id: m.id, field: "position", old: position(m.old), new: position(m.new), significant: significant && m.displaced });
  for (const c of s.changed) {
    for (const [field, f] of Object.entries(c.fields)) rows.push({ mark: "~", id: c.id, field, old: { value: f.old, type: spec?.types?.[field] }, new: { value: f.new, type: spec?.types?.[field] }, significant });
  }
  for (const [field, f] of Object.entries(s.summary)) {
    const type = spec?.summary?.types?.[field];
    rows.push({ mark: "~", id: "summary", field, old: { value: f.old, type }, new: { value: f.new, type }, significant });
  }
  return rows;
}

/** An added or removed item without the key its field name already shows. */
function _withoutKey(item: Row, key: readonly string[]): Row {
  return Object.fromEntries(Object.entries(item).filter(([column]) => !key.includes(column)));
}
