// 14. GET /v1/stocks/rankings: the 30 most recent IPOs, filtered by region and angle inside them.
import { z } from "zod";
import { JsonText } from "../prebuilt-json.ts";
import { date, enumQueryOr, limitApplied, limitQuery, rankOf } from "./_schemas.ts";
import { rankedEntry, rankedJson } from "./_ranked-json.ts";
import { defineOperation } from "./operation.ts";

export const STOCK_RANKINGS_DEFAULT_LIMIT = 12;
/** The snapshot holds the 30 most recent IPOs. */
const STOCK_RANKINGS_MAX_LIMIT = 30;
export const stockRegions = ["all", "us", "hk", "kr", "jp", "tw", "uk", "au", "br"] as const;
export const stockAngles = [
  "all", "btc-treasury", "eth-treasury", "spot-etf", "mining", "exchange", "custody",
  "tokenizer", "stablecoin", "infrastructure", "diversified",
] as const;
type StockRegion = Exclude<(typeof stockRegions)[number], "all">;
type StockAngle = Exclude<(typeof stockAngles)[number], "all">;

export const listStockRankingsRequest = z.strictObject({
  params: z.strictObject({}),
  query: z.strictObject({ region: enumQueryOr(stockRegions, "all"), angle: enumQueryOr(stockAngles, "all"), limit: limitQuery(STOCK_RANKINGS_MAX_LIMIT, STOCK_RANKINGS_DEFAULT_LIMIT) }),
});

const rankedStock = z.strictObject({
  type: z.literal("stock"),
  rank: rankOf(STOCK_RANKINGS_MAX_LIMIT),
  id: z.string(),
  slug: z.string(),
  name: z.string(),
  ticker: z.string(),
  exchange: z.string(),
  region: z.enum(stockRegions.filter((region) => region !== "all") as [StockRegion, ...StockRegion[]]),
  crypto_angle: z.enum(stockAngles.filter((angle) => angle !== "all") as [StockAngle, ...StockAngle[]]),
  ipo_date: date,
  is_pre_ipo: z.boolean(),
});

export const listStockRankingsResponse = z.strictObject({
  kind: z.literal("stock_rankings"),
  limit: limitApplied(STOCK_RANKINGS_MAX_LIMIT),
  region: z.enum(stockRegions),
  angle: z.enum(stockAngles),
  ranking_basis: z.literal("ipo_recent"),
  results: z.array(rankedStock),
});
export type ListStockRankingsResponse = z.output<typeof listStockRankingsResponse>;

type StockRow = Omit<z.output<typeof rankedStock>, "is_pre_ipo"> & { is_pre_ipo: number };

export const listStockRankings = defineOperation({
  id: "list_stock_rankings",
  request: listStockRankingsRequest,
  response: listStockRankingsResponse,
  prepare({ snapshot }) {
    // The whole top 30, serialised once: a request filters, numbers and concatenates (_ranked-json.ts).
    const entries = snapshot.prepare<[], StockRow>(`
      SELECT 'stock' AS type, 0 AS rank,
             s.id AS id, s.slug AS slug, s.name AS name, s.ticker AS ticker, s.exchange AS exchange,
             s.region AS region, s.crypto_angle AS crypto_angle, s.ipo_date AS ipo_date, s.is_pre_ipo AS is_pre_ipo
      FROM stock_rankings r JOIN stocks s ON s.id = r.stock_id
      ORDER BY r.position`).all().map((row) => ({
      region: row.region,
      angle: row.crypto_angle,
      ...rankedEntry({ ...row, is_pre_ipo: row.is_pre_ipo === 1 }),
    }));
    return ({ query }): JsonText => {
      const { region, angle, limit } = query;
      const keep = region === "all" && angle === "all" ? undefined
        : (entry: (typeof entries)[number]) => (region === "all" || entry.region === region) && (angle === "all" || entry.angle === angle);
      const results = rankedJson(entries, limit, keep);
      return new JsonText(`{"kind":"stock_rankings","limit":${limit},"region":"${region}","angle":"${angle}","ranking_basis":"ipo_recent","results":${results}}`);
    };
  },
});
