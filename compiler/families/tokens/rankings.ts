// The tokens' precomputed snapshots: the market (the top-200 universe and its one summary row) and
// the top movers of each period, from the fresh market observations (k_market).
import { snapshotCaps as caps } from "../../policy.ts";

function movers(period: string, column: string): string {
  const side = (direction: string, filter: string, order: string): string => `
INSERT INTO market_movers (period, direction, position, token_id, change_pct)
  SELECT '${period}', '${direction}', row_number() OVER (ORDER BY ${column} ${order}, market_cap_usd DESC, token_id), token_id, ${column}
  FROM market_assets WHERE ${column} ${filter}
  ORDER BY ${column} ${order}, market_cap_usd DESC, token_id LIMIT ${caps.moversPerDirection};`;
  return side("gainer", "> 0", "DESC") + side("loser", "< 0", "ASC");
}

export const tokenRankings = {
  market: {
    sql: `
INSERT INTO market_assets
  SELECT position, id, price_usd, market_cap_usd, volume_24h_usd, change_24h_pct, change_7d_pct FROM k_market ORDER BY position;
INSERT INTO market_snapshot
  SELECT u.as_of, u.n, u.cap, u.volume, btc.price_usd, btc.change_24h_pct, 100.0 * btc.market_cap_usd / u.cap,
    eth.price_usd, eth.change_24h_pct, 100.0 * eth.market_cap_usd / u.cap
  FROM (SELECT min(observed_at) AS as_of, count(*) AS n, sum(market_cap_usd) AS cap, sum(volume_24h_usd) AS volume FROM k_market) u
    JOIN k_market btc ON btc.benchmark = 'btc'
    JOIN k_market eth ON eth.benchmark = 'eth'
  WHERE u.n > 0 AND u.cap > 0;`,
    asOf: "(SELECT as_of FROM market_snapshot UNION ALL SELECT min(observed_at) FROM k_market LIMIT 1)",
  },
  top_movers: {
    sql: movers("24h", "change_24h_pct") + movers("7d", "change_7d_pct"),
  },
};
