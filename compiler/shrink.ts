// The shrink guard (docs/source-format.md, "Replacing an earlier snapshot"): before the new file is
// renamed over --out, it is compared with the snapshot already there, and refused when a family or
// a precomputed snapshot would lose more than SHRINK_LIMIT of its records, or become empty, unless
// the caller accepts it (`--allow-shrink`). The counts come from the two manifests, so the guard
// costs two small reads; the semantic diff (snapshot/diff.ts) runs only to say what would change.
import { statSync } from "node:fs";
import { diffSnapshots, readSnapshotManifest, SnapshotDiffError, type SnapshotDiff } from "../snapshot/diff.ts";
import { familySpecs, MARKET_SUMMARY_TABLE, rankingSpecs } from "../snapshot/specs.ts";
import { families } from "./families/index.ts";

/** The largest share of its records a family or a precomputed snapshot may lose without --allow-shrink. */
export const SHRINK_LIMIT = 0.1;

/** The snapshot table of a family's records: that of its diff spec. */
function recordsTable(family: string, diff: string): string {
  const spec = familySpecs.find((s) => s.name === diff);
  if (spec === undefined) throw new Error(`family ${family}: no diff spec ${diff} in snapshot/specs.ts`);
  return spec.table;
}

/**
 * What is counted, by the manifest's `row_counts` table: the records of each family that `cei
 * diff` compares (its `diff`), each guarded precomputed snapshot's entries (snapshot/specs.ts), and
 * the market's summary row.
 */
const guarded: ReadonlyArray<{ name: string; table: string; unit: string }> = [
  ...families.flatMap(({ family, diff }) => (diff === undefined ? [] : [{ name: family, table: recordsTable(family, diff), unit: "records" }])),
  ...rankingSpecs.filter((spec) => spec.shrinkGuard).map(({ name, table }) => ({ name, table, unit: "entries" })),
  { name: MARKET_SUMMARY_TABLE, table: MARKET_SUMMARY_TABLE, unit: "rows" },
];

export interface Replacement {
  /** `out: (root): message` for each family or snapshot that would shrink too much, or an --out that is not a snapshot. */
  problems: string[];
  /** The new file against the earlier one; null when there is none. Computed on refusal, or when asked. */
  changes?: SnapshotDiff | null;
}

export interface ReplacementOptions {
  outFile: string;
  allowShrink: boolean;
  /** Compute `changes` on success too (cei compile prints their summary). */
  describeChanges: boolean;
}

/** Whether `newFile` may replace what is at `outFile`. */
export function checkReplacement(newFile: string, options: ReplacementOptions): Replacement {
  const { outFile } = options;
  let size: number;
  try {
    size = statSync(outFile).size;
  } catch {
    return { problems: [], changes: options.describeChanges ? null : undefined };
  }
  let before: Record<string, unknown>;
  try {
    if (size === 0) return { problems: [], changes: options.describeChanges ? null : undefined };
    before = readSnapshotManifest(outFile);
  } catch (error) {
    if (!(error instanceof SnapshotDiffError)) throw error;
    const reason = error.message.startsWith(`${outFile}: `) ? error.message.slice(outFile.length + 2) : error.message;
    return { problems: [`${outFile}: (root): --out holds a file that is ${reason.replace(/^not a file$/, "not a regular file")}; it was not replaced: move it away or choose another --out`] };
  }
  const problems = shrinkProblems(outFile, before, readSnapshotManifest(newFile));
  const refused = problems.length > 0 && !options.allowShrink;
  const changes = refused || options.describeChanges ? describe(outFile, newFile) : undefined;
  return { problems: refused ? problems : [], ...(changes === undefined ? {} : { changes }) };
}

/** The diff, unless the two files cannot be compared (another format version): then none. */
function describe(outFile: string, newFile: string): SnapshotDiff | undefined {
  try {
    return diffSnapshots(outFile, newFile);
  } catch (error) {
    if (error instanceof SnapshotDiffError) return undefined;
    throw error;
  }
}

const counts = (manifest: Record<string, unknown>): Record<string, number> => (manifest.row_counts ?? {}) as Record<string, number>;

export function shrinkProblems(outFile: string, before: Record<string, unknown>, after: Record<string, unknown>): string[] {
  const problems: string[] = [];
  const [old, now] = [counts(before), counts(after)];
  for (const { name, table, unit } of guarded) {
    const was = old[table] ?? 0;
    const is = now[table] ?? 0;
    if (was === 0 || is >= was) continue;
    if (is === 0) {
      problems.push(`${outFile}: (root): ${name} would become empty (it has ${was} ${unit}); --allow-shrink replaces it knowingly`);
    } else if ((was - is) / was > SHRINK_LIMIT) {
      const lost = Math.round(((was - is) / was) * 100);
      problems.push(`${outFile}: (root): ${name} would shrink from ${was} to ${is} ${unit} (-${lost}%), more than the ${SHRINK_LIMIT * 100}% allowed; --allow-shrink replaces it knowingly`);
    }
  }
  return problems;
}
