// 12. GET /v1/markets/top-movers: gainers and losers of the fresh top-200 universe for one period.
import { z } from "zod";
import { ApiError, staleData } from "../errors.ts";
import { dateTime, enumQueryOr, limitQuery, ranked } from "./_schemas.ts";
import { isFresh } from "./_freshness.ts";
import { defineOperation } from "./_operation.ts";

export const TOP_MOVERS_DEFAULT_LIMIT = 10;
export const TOP_MOVERS_DEFAULT_PERIOD = "24h";
const periods = ["24h", "7d"] as const;

export const listMarketTopMoversRequest = z.strictObject({
  params: z.strictObject({}),
  query: z.strictObject({ period: enumQueryOr(periods, TOP_MOVERS_DEFAULT_PERIOD), limit: limitQuery(20, TOP_MOVERS_DEFAULT_LIMIT) }),
});

const mover = z.strictObject({
  type: z.literal("token"),
  rank: z.number().int().min(1),
  direction: z.enum(["gainer", "loser"]),
  id: z.string(),
  symbol: z.string(),
  name: z.string(),
  price_usd: z.number(),
  change_pct: z.number(),
  market_cap_usd: z.number(),
  volume_24h_usd: z.number(),
});

export const listMarketTopMoversResponse = z.strictObject({
  kind: z.literal("market_top_movers"),
  as_of: dateTime,
  period: z.enum(periods),
  limit: z.number().int(),
  gainers: z.array(mover.extend({ direction: z.literal("gainer") })),
  losers: z.array(mover.extend({ direction: z.literal("loser") })),
});
export type ListMarketTopMoversResponse = z.output<typeof listMarketTopMoversResponse>;

type MoverRow = z.output<typeof mover>;
type Direction = MoverRow["direction"];

export const listMarketTopMovers = defineOperation({
  id: "list_market_top_movers",
  request: listMarketTopMoversRequest,
  response: listMarketTopMoversResponse,
  prepare({ snapshot, now }) {
    const asOf = snapshot.prepare<[], string | null>("SELECT as_of FROM snapshots WHERE name = 'market'").pluck().get() ?? null;
    const movers = snapshot.prepare<[{ period: string; direction: Direction; limit: number }], MoverRow>(`
      SELECT 'token' AS type, 0 AS rank, m.direction AS direction,
             t.id AS id, t.symbol AS symbol, t.name AS name, a.price_usd AS price_usd, m.change_pct AS change_pct,
             a.market_cap_usd AS market_cap_usd, a.volume_24h_usd AS volume_24h_usd
      FROM market_movers m
        JOIN tokens t ON t.id = m.token_id
        JOIN market_assets a ON a.token_id = m.token_id
      WHERE m.period = @period AND m.direction = @direction
      ORDER BY m.position LIMIT @limit`);
    return ({ query }): ListMarketTopMoversResponse | ApiError => {
      if (asOf === null || !isFresh(asOf, "market", now())) return staleData;
      const period = query.period;
      const limit = query.limit;
      return {
        kind: "market_top_movers",
        as_of: asOf,
        period,
        limit,
        gainers: ranked(movers.all({ period, direction: "gainer", limit })) as ListMarketTopMoversResponse["gainers"],
        losers: ranked(movers.all({ period, direction: "loser", limit })) as ListMarketTopMoversResponse["losers"],
      };
    };
  },
});
