// Sanity warnings: changes that are allowed but deserve a second look before a snapshot is
// published, each a rule with a threshold (the table below; reasons in docs/diff.md, "Warnings").
// They never change the exit code unless `cei diff --fail-on` asks. Every rule reads what the
// specs declare (snapshot/specs.ts: amounts, rankJump, quiet, label and slug; search-keys.ts for
// search), so a new family or snapshot is watched as soon as its spec says what its columns are.
import type Database from "better-sqlite3";
import { itemField, type FamilyDiff } from "./_families.ts";
import type { RankingDiff } from "./_rankings.ts";
import { NEW, OLD, tableInBoth, type FieldChange } from "./_rows.ts";
import { fold } from "./fold.ts";
import { SEARCH_KEY_FAMILIES, searchLayout } from "./search-keys.ts";
import { familySpecs, rankingSpecs, type ColumnSpec } from "./specs.ts";

export const WARNING_RULES = ["value_jump", "rank_jump", "reshuffle", "shrink", "renamed_and_reslugged", "unsearchable"] as const;
export type WarningRule = (typeof WARNING_RULES)[number];

export const warningThresholds = {
  /** value_jump: a price or TVL moving up or down by more than this factor, or to or from 0. */
  valueJumpFactor: 5,
  /** rank_jump: more positions than this; an entry entering counts from one past the old last. */
  rankJumpPositions: 50,
  /** reshuffle: entries entered or displaced, as a share of the ranking's entries. */
  reshuffleShare: 0.5,
  /** shrink: records a family loses, net, as a share of what it had (half the compile's 10% guard). */
  shrinkShare: 0.05,
} as const;

export interface Warning {
  rule: WarningRule;
  /** The family or snapshot (`market`, `trending_entities/2026-01-30`). */
  subject: string;
  /** The record or entry; null when the rule is about the whole family or snapshot. */
  id: string | null;
  /** The changes behind it, as in the diff (list items as `tvl.tvl_usd`, `roles[#1].is_current`). */
  fields: Record<string, FieldChange>;
  /** Why it warns, with the threshold: figures and our own words only. */
  detail: string;
  /** One line for terminals and logs. */
  message: string;
}

interface Changes {
  families: Record<string, FamilyDiff>;
  snapshots: Record<string, RankingDiff>;
}

type Manifest = Record<string, unknown>;

export function findWarnings(db: Database.Database, changes: Changes, before: Manifest, after: Manifest): Warning[] {
  return [..._valueJumps(changes), ..._rankJumps(changes), ..._reshuffles(changes), ..._shrinks(before, after), ..._reslugs(changes), ..._unsearchable(db, changes)];
}

function _warning(rule: WarningRule, subject: string, id: string | null, fields: Record<string, FieldChange>, detail: string): Warning {
  const changed = Object.entries(fields).map(([field, c]) => `${field} ${JSON.stringify(c.old ?? null)} → ${JSON.stringify(c.new ?? null)}`);
  return { rule, subject, id, fields, detail, message: `${rule}: ${subject}${id === null ? "" : ` ${id}`}: ${[...changed, detail].join(", ")}` };
}

const percent = (share: number) => `${Math.round(share * 100)}%`;

function* _valueJumps({ families, snapshots }: Changes): Generator<Warning> {
  const jumps = function* (subject: string, id: string, spec: ColumnSpec, fields: Record<string, FieldChange>, path = (f: string) => f) {
    for (const column of spec.amounts ?? []) {
      const change = fields[column];
      const detail = change === undefined ? null : _jump(change);
      if (detail !== null) yield _warning("value_jump", subject, id, { [path(column)]: change! }, detail);
    }
  };
  for (const spec of familySpecs) {
    for (const record of families[spec.name]?.changed ?? []) {
      yield* jumps(spec.name, record.id, spec, record.fields);
      for (const list of spec.lists) {
        for (const item of record.lists[list.name]?.changed ?? []) yield* jumps(spec.name, record.id, list, item.fields, (f) => itemField(list, item.id, f));
      }
    }
  }
  for (const [name, diff] of Object.entries(snapshots)) {
    const spec = _rankingSpec(name);
    for (const entry of diff.changed) yield* jumps(name, entry.id, spec, entry.fields);
    if (spec.summary !== undefined) yield* jumps(name, "summary", spec.summary, diff.summary);
  }
}

/** Why a change of an amount warns, or null. */
function _jump({ old: before, new: after }: FieldChange): string | null {
  if (typeof before !== "number" || typeof after !== "number") return null;
  const limit = `more than a factor of ${warningThresholds.valueJumpFactor}`;
  if (before === 0 || after === 0) return before === after ? null : `${before === 0 ? "from" : "to"} 0, ${limit}`;
  const factor = Math.max(after / before, before / after);
  return factor > warningThresholds.valueJumpFactor ? `×${factor.toFixed(1)} ${after > before ? "up" : "down"}, ${limit}` : null;
}

function* _rankJumps({ snapshots }: Changes): Generator<Warning> {
  const limit = warningThresholds.rankJumpPositions;
  for (const [name, diff] of Object.entries(snapshots)) {
    if (!_rankingSpec(name).rankJump) continue;
    for (const entry of diff.entered) {
      const above = diff.entries.old + 1 - entry.position;
      if (above > limit) yield _warning("rank_jump", name, entry.id, { position: { old: null, new: entry.position } }, `entered ${above} positions above the old last (${diff.entries.old}), more than ${limit}`);
    }
    for (const move of diff.moved) {
      if (Math.abs(move.by) > limit) yield _warning("rank_jump", name, move.id, { position: { old: move.old, new: move.new } }, `${move.by > 0 ? "rose" : "fell"} ${Math.abs(move.by)} positions, more than ${limit}`);
    }
  }
}

function* _reshuffles({ snapshots }: Changes): Generator<Warning> {
  for (const [name, diff] of Object.entries(snapshots)) {
    const entries = Math.max(diff.entries.old, diff.entries.new);
    if (_rankingSpec(name).quiet || entries === 0) continue;
    const reshuffled = diff.entered.length + diff.moved.filter((m) => m.displaced).length;
    const share = reshuffled / entries;
    if (share > warningThresholds.reshuffleShare) {
      yield _warning("reshuffle", name, null, {}, `${reshuffled} of ${entries} entries (${percent(share)}) entered or were displaced, more than ${percent(warningThresholds.reshuffleShare)}`);
    }
  }
}

function* _shrinks(before: Manifest, after: Manifest): Generator<Warning> {
  const counts = (manifest: Manifest) => (manifest.row_counts ?? {}) as Record<string, number>;
  for (const spec of familySpecs) {
    const [was, is] = [counts(before)[spec.table] ?? 0, counts(after)[spec.table] ?? 0];
    if (was === 0 || (was - is) / was <= warningThresholds.shrinkShare) continue;
    yield _warning("shrink", spec.name, null, {}, `${was} → ${is} records (−${percent((was - is) / was)}), more than ${percent(warningThresholds.shrinkShare)}`);
  }
}

function* _reslugs({ families }: Changes): Generator<Warning> {
  for (const spec of familySpecs) {
    if (spec.label === undefined || spec.slug === undefined) continue;
    for (const record of families[spec.name]?.changed ?? []) {
      const [name, slug] = [record.fields[spec.label], record.fields[spec.slug]];
      if (name === undefined || slug === undefined) continue;
      yield _warning("renamed_and_reslugged", spec.name, record.id, { [spec.label]: name, [spec.slug]: slug }, "renamed and re-slugged in one step: links to the old slug break");
    }
  }
}

/**
 * Changed records that had search keys and have none. Every searchable record has its id among its
 * exact keys (search_exact, folded as the compiler folds it, snapshot/fold.ts), so one statement per
 * family and file looks each record's id up there; the old file is asked only about the records the
 * new one has no key for. The cost grows with the changed records, not with the index.
 */
function* _unsearchable(db: Database.Database, { families }: Changes): Generator<Warning> {
  if (!tableInBoth(db, "search_exact")) return;
  db.function("cei_fold", { deterministic: true }, (value: unknown) => (typeof value === "string" ? fold(value) : null));
  for (const spec of familySpecs) {
    const type = SEARCH_KEY_FAMILIES.find((t) => searchLayout[t].table === spec.table);
    const records = new Map((families[spec.name]?.changed ?? []).filter((r) => Object.keys(r.fields).length > 0).map((r) => [r.id, r]));
    if (type === undefined || records.size === 0) continue;
    const keyed = (schema: string, wanted: boolean, ids: string[]) => db.prepare(`
      SELECT r.id FROM json_each(?) j JOIN ${schema}."${spec.table}" r ON r.id = j.value
      WHERE ${wanted ? "" : "NOT"} EXISTS (SELECT 1 FROM ${schema}.search_exact k WHERE k.key = cei_fold(r.id) AND k.entity_type = ? AND k.entity_id = r.id)
      ORDER BY r.id`).pluck().all(JSON.stringify(ids), type) as string[];
    const keyless = keyed(NEW, false, [...records.keys()]);
    for (const id of keyed(OLD, true, keyless)) {
      yield _warning("unsearchable", spec.name, id, records.get(id)!.fields, "it had search keys and has none: search no longer finds it");
    }
  }
}

function _rankingSpec(snapshot: string) {
  const name = snapshot.split("/")[0];
  const spec = rankingSpecs.find((s) => s.name === name);
  if (spec === undefined) throw new Error(`no ranking spec for snapshot ${snapshot}`);
  return spec;
}
