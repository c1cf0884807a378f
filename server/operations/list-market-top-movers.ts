// 12. GET /v1/markets/top-movers: gainers and losers of the fresh top-200 universe for one period.
import { z } from "zod";
import { ApiError, staleData } from "../errors.ts";
import { JsonText } from "../prebuilt-json.ts";
import { dateTime, enumQueryOr, limitApplied, limitQuery, rankOf } from "./_schemas.ts";
import { freshUntil } from "./_freshness.ts";
import { rankedEntry, rankedJson, type RankedEntry } from "./_ranked-json.ts";
import { defineOperation } from "./operation.ts";

export const TOP_MOVERS_DEFAULT_LIMIT = 10;
/** At most 20 gainers and 20 losers per period. */
const TOP_MOVERS_MAX_LIMIT = 20;
export const TOP_MOVERS_DEFAULT_PERIOD = "24h";
const periods = ["24h", "7d"] as const;

export const listMarketTopMoversRequest = z.strictObject({
  params: z.strictObject({}),
  query: z.strictObject({ period: enumQueryOr(periods, TOP_MOVERS_DEFAULT_PERIOD), limit: limitQuery(TOP_MOVERS_MAX_LIMIT, TOP_MOVERS_DEFAULT_LIMIT) }),
});

const mover = z.strictObject({
  type: z.literal("token"),
  rank: rankOf(TOP_MOVERS_MAX_LIMIT),
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
  limit: limitApplied(TOP_MOVERS_MAX_LIMIT),
  gainers: z.array(mover.extend({ direction: z.literal("gainer") })),
  losers: z.array(mover.extend({ direction: z.literal("loser") })),
});
export type ListMarketTopMoversResponse = z.output<typeof listMarketTopMoversResponse>;

type MoverRow = z.output<typeof mover>;

export const listMarketTopMovers = defineOperation({
  id: "list_market_top_movers",
  request: listMarketTopMoversRequest,
  response: listMarketTopMoversResponse,
  prepare({ snapshot, now }) {
    const asOf = snapshot.prepare<[], string | null>("SELECT as_of FROM snapshots WHERE name = 'market'").pluck().get() ?? null;
    const servableUntil = freshUntil(asOf, "market");
    // Every list (at most 20 per period and direction), serialised once (_ranked-json.ts).
    const rows = snapshot.prepare<[], MoverRow & { period: string }>(`
      SELECT 'token' AS type, 0 AS rank, m.direction AS direction,
             t.id AS id, t.symbol AS symbol, t.name AS name, a.price_usd AS price_usd, m.change_pct AS change_pct,
             a.market_cap_usd AS market_cap_usd, a.volume_24h_usd AS volume_24h_usd, m.period AS period
      FROM market_movers m
        JOIN tokens t ON t.id = m.token_id
        JOIN market_assets a ON a.token_id = m.token_id
      ORDER BY m.period, m.direction, m.position`).all();
    const lists = new Map<string, RankedEntry[]>();
    for (const { period, ...row } of rows) {
      const list = `${period} ${row.direction}`;
      if (!lists.has(list)) lists.set(list, []);
      lists.get(list)!.push(rankedEntry(row));
    }
    const none: RankedEntry[] = [];
    return ({ query }): JsonText | ApiError => {
      if (now() > servableUntil) return staleData;
      const { period, limit } = query;
      const gainers = rankedJson(lists.get(`${period} gainer`) ?? none, limit);
      const losers = rankedJson(lists.get(`${period} loser`) ?? none, limit);
      return new JsonText(`{"kind":"market_top_movers","as_of":${JSON.stringify(asOf)},"period":"${period}","limit":${limit},"gainers":${gainers},"losers":${losers}}`);
    };
  },
});
