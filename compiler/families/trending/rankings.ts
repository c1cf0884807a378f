// The trending entities (live, and each of the previous days): ranked on a side thread into its
// own database (compiler/snapshots.ts, sideRankingSql), which the compile then copies in.
import { cutoff, eligibilityThresholds, snapshotCaps as caps } from "../../policy.ts";

const DAY_MS = 86_400_000;

/** The previous `n` UTC calendar days of compiledAt, most recent first. */
export function previousUtcDays(compiledAt: Date, n: number): string[] {
  const today = Date.UTC(compiledAt.getUTCFullYear(), compiledAt.getUTCMonth(), compiledAt.getUTCDate());
  return Array.from({ length: n }, (_, i) => new Date(today - (i + 1) * DAY_MS).toISOString().slice(0, 10));
}

/**
 * The trending entities (live, and each of the previous days), computed on a side thread into its
 * own database: it only reads the staging and k_* tables, and its result is small. Writes the
 * tables trending_days and k_trending_top of that database, which trendingCopySql copies.
 */
export function trendingSql(compiledAt: Date, eligibleEntity: (typeColumn: string, idColumn: string) => string): string {
  const liveCutoff = cutoff(compiledAt, eligibilityThresholds.liveTrendingSignalMaxAge);
  const days = previousUtcDays(compiledAt, caps.trendingDatedDays);
  const top = caps.trendingEntities;
  return `
CREATE TABLE k_days (day TEXT PRIMARY KEY, as_of TEXT);
INSERT INTO k_days VALUES ${days.map((d) => `('${d}', '${d}T23:59:59.999Z')`).join(", ")};
CREATE TABLE k_trending AS
  SELECT day, entity_type, entity_id, score, observed_at FROM (
    SELECT s.day, s.entity_type, s.entity_id, s.score, s.observed_at,
      row_number() OVER (PARTITION BY s.day, s.entity_type, s.entity_id ORDER BY s.score DESC, s.observed_at DESC, s.line) AS best
    FROM s_trending s
    WHERE ((s.day = 'live' AND s.observed_at >= '${liveCutoff}') OR s.day IN (SELECT day FROM k_days))
      AND ${eligibleEntity("s.entity_type", "s.entity_id")})
  WHERE best = 1;
CREATE TABLE k_trending_top AS
  SELECT * FROM (SELECT *, row_number() OVER (PARTITION BY day ORDER BY score DESC, entity_type, entity_id) AS position FROM k_trending)
  WHERE position <= ${top};
CREATE TABLE trending_days AS
  SELECT day, as_of FROM (
    SELECT 'live' AS day, min(observed_at) AS as_of FROM k_trending_top WHERE day = 'live'
    UNION ALL SELECT day, as_of FROM k_days)
  WHERE as_of IS NOT NULL;
`;
}

