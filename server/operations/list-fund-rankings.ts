// 15. GET /v1/funds/rankings: the top-30 score snapshot as fund identities, filtered by fund type.
import { z } from "zod";
import { ApiError, staleData } from "../errors.ts";
import { dateTime, enumQueryOr, limitQuery, ranked } from "./_schemas.ts";
import { isFresh } from "./_freshness.ts";
import { defineOperation } from "./_operation.ts";

export const FUND_RANKINGS_DEFAULT_LIMIT = 30;
export const fundTypes = ["all", "vc", "angel", "accelerator", "launchpad", "cvc", "family-office"] as const;

export const listFundRankingsRequest = z.strictObject({
  params: z.strictObject({}),
  query: z.strictObject({ fund_type: enumQueryOr(fundTypes, "all"), limit: limitQuery(30, FUND_RANKINGS_DEFAULT_LIMIT) }),
});

const rankedFund = z.strictObject({
  type: z.literal("fund"),
  rank: z.number().int().min(1),
  id: z.string(),
  slug: z.string(),
  name: z.string(),
  fund_type: z.string(),
});

export const listFundRankingsResponse = z.strictObject({
  kind: z.literal("fund_rankings"),
  ranking_basis: z.literal("service_score"),
  as_of: dateTime,
  limit: z.number().int(),
  fund_type: z.enum(fundTypes),
  results: z.array(rankedFund),
});
export type ListFundRankingsResponse = z.output<typeof listFundRankingsResponse>;

export const listFundRankings = defineOperation({
  id: "list_fund_rankings",
  request: listFundRankingsRequest,
  response: listFundRankingsResponse,
  prepare({ snapshot, now }) {
    const asOf = snapshot.prepare<[], string | null>("SELECT as_of FROM snapshots WHERE name = 'fund_rankings'").pluck().get() ?? null;
    const rankings = snapshot.prepare<[{ fund_type: string | null; limit: number }], z.output<typeof rankedFund>>(`
      SELECT 'fund' AS type, 0 AS rank,
             f.id AS id, f.slug AS slug, f.name AS name, f.fund_type AS fund_type
      FROM fund_rankings r JOIN funds f ON f.id = r.fund_id
      WHERE @fund_type IS NULL OR f.fund_type = @fund_type
      ORDER BY r.position LIMIT @limit`);
    return ({ query }): ListFundRankingsResponse | ApiError => {
      if (asOf === null || !isFresh(asOf, "fund_rankings", now())) return staleData;
      const fundType = query.fund_type;
      const limit = query.limit;
      return {
        kind: "fund_rankings",
        ranking_basis: "service_score",
        as_of: asOf,
        limit,
        fund_type: fundType,
        results: ranked(rankings.all({ fund_type: fundType === "all" ? null : fundType, limit })),
      };
    };
  },
});
