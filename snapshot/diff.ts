// The semantic difference between two compiled snapshots: per family, records added, removed and
// changed; per precomputed snapshot, entries entered, left, moved and `as_of`; the manifest's
// changed entries. SQLite computes every set difference on one connection holding both files
// (snapshot/_rows.ts), so memory grows with the size of the difference, not of the files.
// The JSON shape is documented in docs/diff.md; `cei diff` prints it, `cei compile` can reuse it.
import { diffFamily, type FamilyDiff } from "./_families.ts";
import { openPair, readSnapshotManifest, SnapshotDiffError } from "./_open-pair.ts";
import { diffRankings, type RankingDiff } from "./_rankings.ts";
import { compareIds, type FieldChange } from "./_rows.ts";
import { familySpecs } from "./specs.ts";
import { findWarnings, type Warning } from "./warnings.ts";

// The manifest reader with our own sentence for a missing file or one that is not a snapshot,
// for the other commands that open a snapshot (cei inspect, cei compile's shrink guard).
export { readSnapshotManifest, SnapshotDiffError };
export type { FamilyDiff, RankingDiff, FieldChange, Warning };
export type { ListDiff, RecordChange } from "./_families.ts";

export interface SnapshotSide {
  file: string;
  format_version: number;
  content_hash: string | null;
  /** The time the snapshot's eligibility and precomputed snapshots are relative to (the manifest's). */
  reference_time: string | null;
}

/** A manifest entry that differs; nested objects are compared entry by entry (`row_counts.projects`). */
export interface ManifestChange {
  key: string;
  old: unknown;
  new: unknown;
}

export interface DiffSummary {
  families: Record<string, { added: number; removed: number; changed: number }>;
  snapshots: Record<string, { entered: number; left: number; moved: number; changed: number; as_of_changed: boolean }>;
  manifest_changes: number;
  warnings: number;
}

export interface SnapshotDiff {
  old: SnapshotSide;
  new: SnapshotSide;
  identical: boolean;
  summary: DiffSummary;
  manifest: ManifestChange[];
  families: Record<string, FamilyDiff>;
  snapshots: Record<string, RankingDiff>;
  /** Sanity warnings (snapshot/warnings.ts): never a difference by themselves. */
  warnings: Warning[];
}

/** Throws SnapshotDiffError when a file is missing or not a snapshot, or the format versions differ. */
export function diffSnapshots(oldFile: string, newFile: string): SnapshotDiff {
  const oldManifest = readSnapshotManifest(oldFile);
  const newManifest = readSnapshotManifest(newFile);
  if (oldManifest.format_version !== newManifest.format_version) {
    throw new SnapshotDiffError(
      `cannot compare snapshots of different format versions: ${oldFile} is format ${String(oldManifest.format_version)}, ${newFile} is format ${String(newManifest.format_version)}`,
    );
  }
  const db = openPair(oldFile, newFile);
  try {
    const families = Object.fromEntries(familySpecs.map((spec) => [spec.name, diffFamily(db, spec)]));
    const snapshots = diffRankings(db);
    const manifest = diffManifests(oldManifest, newManifest);
    const warnings = findWarnings(db, { families, snapshots }, oldManifest, newManifest);
    const summary = _summary(families, snapshots, manifest, warnings);
    const identical = manifest.length === 0
      && Object.values(summary.families).every((f) => f.added + f.removed + f.changed === 0)
      && Object.keys(summary.snapshots).length === 0;
    return { old: _side(oldFile, oldManifest), new: _side(newFile, newManifest), identical, summary, manifest, families, snapshots, warnings };
  } finally {
    db.close();
  }
}

export function diffManifests(before: Record<string, unknown>, after: Record<string, unknown>): ManifestChange[] {
  const flatBefore = _flatten(before);
  const flatAfter = _flatten(after);
  const keys = [...new Set([...flatBefore.keys(), ...flatAfter.keys()])].sort(compareIds);
  return keys
    .filter((key) => JSON.stringify(flatBefore.get(key)) !== JSON.stringify(flatAfter.get(key)))
    .map((key) => ({ key, old: flatBefore.get(key) ?? null, new: flatAfter.get(key) ?? null }));
}

function _flatten(value: Record<string, unknown>, prefix = "", into = new Map<string, unknown>()): Map<string, unknown> {
  for (const [key, entry] of Object.entries(value)) {
    const path = prefix + key;
    if (entry !== null && typeof entry === "object" && !Array.isArray(entry)) _flatten(entry as Record<string, unknown>, `${path}.`, into);
    else into.set(path, entry);
  }
  return into;
}

function _side(file: string, manifest: Record<string, unknown>): SnapshotSide {
  const text = (key: string) => (typeof manifest[key] === "string" ? manifest[key] : null);
  return { file, format_version: manifest.format_version as number, content_hash: text("content_hash"), reference_time: text("reference_time") };
}

function _summary(families: Record<string, FamilyDiff>, snapshots: Record<string, RankingDiff>, manifest: ManifestChange[], warnings: Warning[]): DiffSummary {
  return {
    families: Object.fromEntries(Object.entries(families).map(([name, f]) => [name, { added: f.added.length, removed: f.removed.length, changed: f.changed.length }])),
    snapshots: Object.fromEntries(Object.entries(snapshots).map(([name, s]) => [name, {
      entered: s.entered.length, left: s.left.length, moved: s.moved.length,
      changed: s.changed.length + (Object.keys(s.summary).length > 0 ? 1 : 0), as_of_changed: s.as_of !== null,
    }])),
    manifest_changes: manifest.length,
    warnings: warnings.length,
  };
}
