// 13. GET /v1/markets/snapshot: aggregates of the eligible top-200 universe.
import { z } from "zod";
import { ApiError, staleData } from "../errors.ts";
import { dateTime } from "./_schemas.ts";
import { JsonText } from "../prebuilt-json.ts";
import { freshUntil } from "./_freshness.ts";
import { defineOperation } from "./operation.ts";

export const getMarketSnapshotRequest = z.strictObject({
  params: z.strictObject({}),
  query: z.strictObject({}),
});

export const getMarketSnapshotResponse = z.strictObject({
  kind: z.literal("market_snapshot"),
  as_of: dateTime,
  universe: z.literal("top_200_market_assets"),
  // The top-200 universe (docs/api.md, operation 13).
  represented_asset_count: z.number().int().min(0).max(200),
  represented_market_cap_usd: z.number(),
  represented_volume_24h_usd: z.number(),
  btc_price_usd: z.number(),
  btc_change_24h_pct: z.number(),
  btc_share_of_represented_market_cap_pct: z.number(),
  eth_price_usd: z.number(),
  eth_change_24h_pct: z.number(),
  eth_share_of_represented_market_cap_pct: z.number(),
});
export type GetMarketSnapshotResponse = z.output<typeof getMarketSnapshotResponse>;

export const getMarketSnapshot = defineOperation({
  id: "get_market_snapshot",
  request: getMarketSnapshotRequest,
  response: getMarketSnapshotResponse,
  prepare({ snapshot, now }) {
    // The snapshot file never changes while served: the one row is read and serialised once.
    const marketSnapshot = snapshot.prepare<[], GetMarketSnapshotResponse>(`
      SELECT 'market_snapshot' AS kind, as_of, 'top_200_market_assets' AS universe,
             represented_asset_count, represented_market_cap_usd, represented_volume_24h_usd,
             btc_price_usd, btc_change_24h_pct, btc_share_of_represented_market_cap_pct,
             eth_price_usd, eth_change_24h_pct, eth_share_of_represented_market_cap_pct
      FROM market_snapshot LIMIT 1`).get();
    const servableUntil = freshUntil(marketSnapshot?.as_of, "market");
    const data = new JsonText(JSON.stringify(marketSnapshot ?? null));
    return (): JsonText | ApiError => (now() > servableUntil ? staleData : data);
  },
});
