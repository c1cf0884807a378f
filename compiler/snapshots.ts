// Step 6b: the precomputed snapshots (docs/architecture.md, "Snapshots"): fixed-size, sorted
// with deterministic tie-breaks, each with its as_of.
import { cutoff, eligibilityThresholds, snapshotCaps as caps } from "./policy.ts";
import { eligibleEntity } from "./eligibility.ts";

const DAY_MS = 86_400_000;

/** The previous `n` UTC calendar days of compiledAt, most recent first. */
export function previousUtcDays(compiledAt: Date, n: number): string[] {
  const today = Date.UTC(compiledAt.getUTCFullYear(), compiledAt.getUTCMonth(), compiledAt.getUTCDate());
  return Array.from({ length: n }, (_, i) => new Date(today - (i + 1) * DAY_MS).toISOString().slice(0, 10));
}

function movers(period: string, column: string): string {
  const side = (direction: string, filter: string, order: string): string => `
INSERT INTO market_movers (period, direction, position, token_id, change_pct)
  SELECT '${period}', '${direction}', row_number() OVER (ORDER BY ${column} ${order}, market_cap_usd DESC, token_id), token_id, ${column}
  FROM market_assets WHERE ${column} ${filter}
  ORDER BY ${column} ${order}, market_cap_usd DESC, token_id LIMIT ${caps.moversPerDirection};`;
  return side("gainer", "> 0", "DESC") + side("loser", "< 0", "ASC");
}

export function snapshotSql(): string {
  return `
INSERT INTO trending_projects (position, project_id, hot_tier)
  SELECT row_number() OVER (ORDER BY score DESC, project_id), project_id, hot_tier
  FROM k_trend_checked WHERE rule IS NULL ORDER BY score DESC, project_id LIMIT ${caps.trendingProjects};
INSERT INTO fund_rankings (position, fund_id)
  SELECT row_number() OVER (ORDER BY score DESC, id), id FROM k_funds ORDER BY score DESC, id LIMIT ${caps.fundRankings};
INSERT INTO stock_rankings (position, stock_id)
  SELECT row_number() OVER (ORDER BY ipo_date DESC, id), id FROM k_stocks ORDER BY ipo_date DESC, id LIMIT ${caps.stockRankings};

INSERT INTO market_assets
  SELECT position, id, price_usd, market_cap_usd, volume_24h_usd, change_24h_pct, change_7d_pct FROM k_market ORDER BY position;
${movers("24h", "change_24h_pct")}
${movers("7d", "change_7d_pct")}
INSERT INTO market_snapshot
  SELECT u.as_of, u.n, u.cap, u.volume, btc.price_usd, btc.change_24h_pct, 100.0 * btc.market_cap_usd / u.cap,
    eth.price_usd, eth.change_24h_pct, 100.0 * eth.market_cap_usd / u.cap
  FROM (SELECT min(observed_at) AS as_of, count(*) AS n, sum(market_cap_usd) AS cap, sum(volume_24h_usd) AS volume FROM k_market) u
    JOIN k_market btc ON btc.benchmark = 'btc'
    JOIN k_market eth ON eth.benchmark = 'eth'
  WHERE u.n > 0 AND u.cap > 0;
`;
}

/**
 * The trending entities (live, and each of the previous days), computed on a side thread into its
 * own database: it only reads the staging and k_* tables, and its result is small. Writes the
 * tables trending_days and k_trending_top of that database, which trendingCopySql copies.
 */
export function trendingSql(compiledAt: Date): string {
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

/** Then, on the snapshot: the side database's trending tables, and every snapshot's as_of. */
export function trendingCopySql(side: string): string {
  return `
INSERT INTO main.trending_days (day, as_of) SELECT day, as_of FROM ${side}.trending_days ORDER BY day;
INSERT INTO main.trending_entities (day, position, entity_type, entity_id)
  SELECT day, position, entity_type, entity_id FROM ${side}.k_trending_top ORDER BY day, position;
INSERT INTO snapshots (name, as_of)
  SELECT 'fund_rankings', (SELECT min(f.score_updated_at) FROM fund_rankings r JOIN k_funds f ON f.id = r.fund_id)
  UNION ALL SELECT 'market', (SELECT as_of FROM market_snapshot UNION ALL SELECT min(observed_at) FROM k_market LIMIT 1)
  UNION ALL SELECT 'stock_rankings', NULL
  UNION ALL SELECT 'trending_live', (SELECT as_of FROM trending_days WHERE day = 'live')
  UNION ALL SELECT 'trending_projects',
    (SELECT min(t.observed_at) FROM trending_projects r JOIN k_trend_checked t ON t.project_id = r.project_id)
  ORDER BY 1;
`;
}
