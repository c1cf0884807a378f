// A compile whose precomputed snapshots would already be stale at its own reference time
// (docs/source-format.md, "Reference time"): such a snapshot would never be served, so it is a
// problem unless the curator accepts it (`allowStale`), when it is a warning.
import type Database from "better-sqlite3";
import { freshnessBounds } from "../snapshot/freshness.ts";

const HOUR = 3_600_000;
const DAY = 24 * HOUR;
const describeAge = (ms: number): string => (ms >= 2 * DAY && ms % DAY === 0 ? `${ms / DAY} days` : `${ms / HOUR} hours`);

interface BoundedSnapshot {
  name: "trending_live" | "trending_projects" | "market" | "fund_rankings";
  /** The exclusion rule that empties it when every observation is too old. */
  staleRule?: { family: string; rule: string };
  /** file, line, path and time of the observation to point at: the newest stale one (empty) or the oldest kept one. */
  locate: string;
}

const boundedSnapshots: readonly BoundedSnapshot[] = [
  {
    name: "trending_live",
    staleRule: { family: "trending", rule: "trending_signal_stale" },
    locate: "SELECT 'trending.jsonl', line, 'observed_at', observed_at FROM s_trending WHERE day = 'live' ORDER BY observed_at DESC, line LIMIT 1",
  },
  {
    name: "trending_projects",
    staleRule: { family: "projects", rule: "trend_observation_stale" },
    locate: "SELECT 'projects.jsonl', project_line, 'trend', observed_at FROM k_trend_checked ORDER BY observed_at DESC, project_line LIMIT 1",
  },
  {
    name: "market",
    staleRule: { family: "tokens", rule: "market_observation_stale" },
    locate: "SELECT 'tokens.jsonl', line, 'market.observed_at', observed_at FROM k_market_checked ORDER BY observed_at DESC, line LIMIT 1",
  },
  {
    name: "fund_rankings",
    locate: `SELECT 'funds.jsonl', f.line, 'score_updated_at', f.score_updated_at
      FROM main.fund_rankings r JOIN k_funds f ON f.id = r.fund_id ORDER BY f.score_updated_at, f.line LIMIT 1`,
  },
];

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
    const staleCount = snapshot.staleRule === undefined ? 0 : (excluded[snapshot.staleRule.family]?.[snapshot.staleRule.rule] ?? 0);
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
