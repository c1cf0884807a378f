// A compile whose precomputed snapshots would already be stale at its own reference time
// (docs/source-format.md, "Reference time"): such a snapshot would never be served, so it is a
// problem unless the curator accepts it (`allowStale`), when it is a warning.
import type Database from "better-sqlite3";
import { freshnessBounds } from "../snapshot/freshness.ts";
import type { StaleSpec } from "./families/define.ts";
import { families } from "./families/index.ts";

const HOUR = 3_600_000;
const DAY = 24 * HOUR;
const describeAge = (ms: number): string => (ms >= 2 * DAY && ms % DAY === 0 ? `${ms / DAY} days` : `${ms / HOUR} hours`);

interface BoundedSnapshot extends StaleSpec {
  name: keyof typeof freshnessBounds;
  family: string;
}

/** The snapshots a family declares `stale` specs for, in the order of the freshness table. */
const boundedSnapshots: readonly BoundedSnapshot[] = (Object.keys(freshnessBounds) as Array<keyof typeof freshnessBounds>).flatMap((name) =>
  families.flatMap(({ family, stale }) => {
    const spec = stale?.[name];
    return spec === undefined ? [] : [{ name, family, ...spec }];
  }));

/**
 * `file:line: path: message` for each bounded snapshot that is older than its freshness bound at
 * `referenceTime`, or empty only because every observation for it was too old. Run on the
 * snapshot database with the staging and kept databases attached.
 */
export function staleSnapshotProblems(db: Database.Database, referenceTime: Date, excluded: Record<string, Record<string, number>>): string[] {
  const problems: string[] = [];
  const reference = referenceTime.toISOString();
  const asOfs = new Map((db.prepare("SELECT name, as_of FROM main.snapshots").raw().all() as Array<[string, string | null]>));
  for (const snapshot of boundedSnapshots) {
    const bound = freshnessBounds[snapshot.name];
    const asOf = asOfs.get(snapshot.name) ?? null;
    const staleCount = snapshot.staleRule === undefined ? 0 : (excluded[snapshot.family]?.[snapshot.staleRule] ?? 0);
    const stale = asOf !== null ? referenceTime.getTime() - Date.parse(asOf) > bound : staleCount > 0;
    if (!stale) continue;
    const at = db.prepare(snapshot.locate).raw().get() as [string, number, string, string] | undefined;
    const where = at === undefined ? "(sources): (root)" : `${at[0]}:${at[1]}: ${at[2]}`;
    problems.push(
      asOf !== null
        ? `${where}: the ${snapshot.name} snapshot would be stale: its as_of ${asOf} is more than ${describeAge(bound)} before the reference time ${reference}`
        : `${where}: the ${snapshot.name} snapshot would be empty: ${staleCount} observation(s) are more than ${describeAge(bound)} before the reference time ${reference}` +
            (at === undefined ? "" : ` (the newest is ${at[3]})`),
    );
  }
  return problems;
}
