// The diff as text for a terminal: the summary first (counts only; `summariseDiff` alone is what
// `cei diff --summary` prints and what a compile can print), then families, snapshots and manifest.
// Colour (ANSI) only when the caller says so: the CLI asks for it on a TTY without NO_COLOR.
import type { FieldChange, ListDiff, RankingDiff, SnapshotDiff } from "./diff.ts";
import { familySpecs } from "./specs.ts";

export interface TextOptions { colour: boolean }

type Paint = (text: string) => string;
interface Palette { added: Paint; removed: Paint; changed: Paint; heading: Paint }

const plain: Palette = { added: (t) => t, removed: (t) => t, changed: (t) => t, heading: (t) => t };
const ansi = (code: number): Paint => (t) => `\x1b[${code}m${t}\x1b[0m`;
const coloured: Palette = { added: ansi(32), removed: ansi(31), changed: ansi(33), heading: ansi(1) };

/** The counts only: one line per family, changed snapshot and the manifest. */
export function summariseDiff(diff: SnapshotDiff, options: TextOptions = { colour: false }): string {
  const p = options.colour ? coloured : plain;
  if (diff.identical) return "no differences\n";
  const lines = [p.heading("summary")];
  const families = Object.entries(diff.summary.families);
  const width = Math.max(...[...families.map(([n]) => n), ...Object.keys(diff.summary.snapshots)].map((n) => n.length));
  for (const [name, c] of families) {
    if (c.added + c.removed + c.changed === 0) continue;
    lines.push(`  ${name.padEnd(width)}  ${_counts(p, [[c.added, "added", p.added], [c.removed, "removed", p.removed], [c.changed, "changed", p.changed]])}`);
  }
  for (const [name, c] of Object.entries(diff.summary.snapshots)) {
    const parts = _counts(p, [[c.entered, "entered", p.added], [c.left, "left", p.removed], [c.moved, "moved", p.changed], [c.changed, "changed", p.changed]]);
    lines.push(`  ${name.padEnd(width)}  ${[parts, c.as_of_changed ? p.changed("as_of changed") : ""].filter((s) => s !== "").join(", ")}`);
  }
  if (diff.summary.manifest_changes > 0) lines.push(`  ${"manifest".padEnd(width)}  ${diff.summary.manifest_changes} ${diff.summary.manifest_changes === 1 ? "entry" : "entries"} changed`);
  if (diff.warnings.length > 0) lines.push(p.removed(`warnings (${diff.warnings.length})`), ...diff.warnings.map((w) => `  ${w.message}`));
  return lines.join("\n") + "\n";
}

/** The whole diff, grouped: summary, then each family, snapshot and the manifest. */
export function formatDiff(diff: SnapshotDiff, options: TextOptions = { colour: false }): string {
  const p = options.colour ? coloured : plain;
  const out = [`${p.heading("cei diff")} ${diff.old.file} ${diff.new.file}`, summariseDiff(diff, options).trimEnd()];
  for (const [name, family] of Object.entries(diff.families)) {
    if (family.added.length + family.removed.length + family.changed.length === 0) continue;
    out.push("", p.heading(name));
    const label = familySpecs.find((spec) => spec.name === name)?.label;
    for (const { id, record } of family.added) out.push(p.added(`  + ${id}${_label(record, label)}`));
    for (const { id, record } of family.removed) out.push(p.removed(`  - ${id}${_label(record, label)}`));
    for (const change of family.changed) {
      out.push(p.changed(`  ~ ${change.id}`));
      out.push(..._fields(change.fields, "      "));
      for (const [list, items] of Object.entries(change.lists)) out.push(..._list(p, list, items));
    }
  }
  for (const [name, snapshot] of Object.entries(diff.snapshots)) out.push("", ..._snapshot(p, name, snapshot));
  if (diff.manifest.length > 0) {
    out.push("", p.heading("manifest"));
    for (const change of diff.manifest) out.push(`  ${change.key}: ${_value(change.old)} → ${_value(change.new)}`);
  }
  return out.join("\n") + "\n";
}

function _list(p: Palette, list: string, items: ListDiff): string[] {
  const lines: string[] = [];
  for (const { id } of items.added) lines.push(p.added(`      ${list} + ${id}`));
  for (const { id } of items.removed) lines.push(p.removed(`      ${list} - ${id}`));
  for (const { id, fields } of items.changed) lines.push(p.changed(`      ${list} ~ ${id}`), ..._fields(fields, "          "));
  return lines;
}

function _snapshot(p: Palette, name: string, s: RankingDiff): string[] {
  const lines = [p.heading(name) + (s.as_of === null ? "" : `  as_of ${_value(s.as_of.old)} → ${_value(s.as_of.new)}`)];
  for (const e of s.entered) lines.push(p.added(`  + ${e.id} at ${e.position}`));
  for (const e of s.left) lines.push(p.removed(`  - ${e.id} (was ${e.position})`));
  for (const m of s.moved) lines.push(p.changed(`  ${m.by > 0 ? "↑" : "↓"} ${m.id} ${m.old} → ${m.new} (${m.by > 0 ? "+" : ""}${m.by})`));
  for (const c of s.changed) lines.push(p.changed(`  ~ ${c.id}`), ..._fields(c.fields, "      "));
  if (Object.keys(s.summary).length > 0) lines.push(p.changed("  ~ summary"), ..._fields(s.summary, "      "));
  return lines;
}

function _fields(fields: Record<string, FieldChange>, indent: string): string[] {
  return Object.entries(fields).map(([field, change]) => `${indent}${field}: ${_value(change.old)} → ${_value(change.new)}`);
}

function _counts(p: Palette, counts: Array<[number, string, Paint]>): string {
  return counts.filter(([n]) => n > 0).map(([n, word, paint]) => paint(`${n} ${word}`)).join(", ");
}

/** A record's human name beside its id, when its family has one (its spec's `label`). */
function _label(record: Record<string, unknown>, label: string | undefined): string {
  const name = label === undefined ? undefined : record[label];
  return typeof name === "string" ? ` ${JSON.stringify(name)}` : "";
}

function _value(value: unknown): string {
  return value === undefined ? "null" : JSON.stringify(value);
}
