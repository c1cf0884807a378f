// 20. GET /v1/tokens/{id}: a token's identity, the project that issues it, its contracts and, while
// it is in the fresh top-200 universe, its market facts (decision 31).
import { z } from "zod";
import { notFound } from "../errors.ts";
import { dateTime, noQuery, pathSlug, projectRef } from "./_schemas.ts";
import { freshUntil } from "./_freshness.ts";
import { defineOperation } from "./operation.ts";

export const getTokenRequest = z.strictObject({
  params: z.strictObject({ id: pathSlug }),
  query: noQuery,
});

const contract = z.strictObject({ chain_id: z.string(), address: z.string() });
const market = z.strictObject({
  as_of: dateTime,
  // The token's position in the top-200 market universe.
  rank: z.number().int().min(1).max(200),
  price_usd: z.number(),
  change_24h_pct: z.number(),
  change_7d_pct: z.number(),
  market_cap_usd: z.number(),
  volume_24h_usd: z.number(),
});

export const getTokenResponse = z.strictObject({
  kind: z.literal("token"),
  id: z.string(),
  symbol: z.string(),
  name: z.string(),
  project: projectRef.nullable(),
  contracts: z.array(contract).max(20),
  market: market.nullable(),
});
export type GetTokenResponse = z.output<typeof getTokenResponse>;

interface TokenRow {
  id: string; symbol: string; name: string;
  project_id: string | null; project_slug: string | null; project_name: string | null;
}
type MarketRow = Omit<z.output<typeof market>, "as_of">;

export const getToken = defineOperation({
  id: "get_token",
  request: getTokenRequest,
  response: getTokenResponse,
  // The market facts go when the market snapshot is no longer fresh: then the answer is made again.
  keepAnswers: { until: (data) => (data.market === null ? Infinity : freshUntil(data.market.as_of, "market")) },
  prepare({ snapshot, now }) {
    const tokenById = snapshot.prepare<[string], TokenRow>(`
      SELECT t.id AS id, t.symbol AS symbol, t.name AS name, p.id AS project_id, p.slug AS project_slug, p.name AS project_name
      FROM tokens t LEFT JOIN projects p ON p.id = t.project_id WHERE t.id = ?`);
    const marketOf = snapshot.prepare<[string], MarketRow>(`
      SELECT position AS rank, price_usd, change_24h_pct, change_7d_pct, market_cap_usd, volume_24h_usd
      FROM market_assets WHERE token_id = ?`);
    const contractsOf = snapshot.prepare<[string], z.output<typeof contract>>(
      "SELECT chain_id, address FROM token_contracts WHERE token_id = ? ORDER BY position",
    );
    const marketAsOf = snapshot.prepare<[], string | null>("SELECT as_of FROM snapshots WHERE name = 'market'").pluck().get() ?? null;
    const marketUntil = freshUntil(marketAsOf, "market");
    return ({ params }): GetTokenResponse | typeof notFound => {
      const token = tokenById.get(params.id);
      if (token === undefined) return notFound;
      const facts = now() <= marketUntil ? marketOf.get(token.id) : undefined;
      return {
        kind: "token",
        id: token.id,
        symbol: token.symbol,
        name: token.name,
        project: token.project_id === null ? null : { id: token.project_id, slug: token.project_slug!, name: token.project_name! },
        contracts: contractsOf.all(token.id),
        market: facts === undefined ? null : { as_of: marketAsOf!, ...facts },
      };
    };
  },
});
