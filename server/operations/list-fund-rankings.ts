// 15. GET /v1/funds/rankings: the top-30 score snapshot as fund identities, filtered by fund type.
import { z } from "zod";
import { ApiError, staleData } from "../errors.ts";
import { JsonText } from "../prebuilt-json.ts";
import { dateTime, enumQueryOr, fundTypeValues, limitApplied, limitQuery, rankOf } from "./_schemas.ts";
import { freshUntil } from "./_freshness.ts";
import { rankedEntry, rankedJson } from "./_ranked-json.ts";
import { defineOperation } from "./operation.ts";

export const FUND_RANKINGS_DEFAULT_LIMIT = 30;
/** The snapshot holds the top 30. */
const FUND_RANKINGS_MAX_LIMIT = 30;
export const fundTypes = ["all", ...fundTypeValues] as const;

export const listFundRankingsRequest = z.strictObject({
  params: z.strictObject({}),
  query: z.strictObject({ fund_type: enumQueryOr(fundTypes, "all"), limit: limitQuery(FUND_RANKINGS_MAX_LIMIT, FUND_RANKINGS_DEFAULT_LIMIT) }),
});

const rankedFund = z.strictObject({
  type: z.literal("fund"),
  rank: rankOf(FUND_RANKINGS_MAX_LIMIT),
  id: z.string(),
  slug: z.string(),
  name: z.string(),
  fund_type: z.enum(fundTypeValues),
});

export const listFundRankingsResponse = z.strictObject({
  kind: z.literal("fund_rankings"),
  ranking_basis: z.literal("service_score"),
  as_of: dateTime,
  limit: limitApplied(FUND_RANKINGS_MAX_LIMIT),
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
    const servableUntil = freshUntil(asOf, "fund_rankings");
    // The whole top 30, serialised once: a request filters, numbers and concatenates (_ranked-json.ts).
    const entries = snapshot.prepare<[], z.output<typeof rankedFund>>(`
      SELECT 'fund' AS type, 0 AS rank,
             f.id AS id, f.slug AS slug, f.name AS name, f.fund_type AS fund_type
      FROM fund_rankings r JOIN funds f ON f.id = r.fund_id
      ORDER BY r.position`).all().map((row) => ({ fund_type: row.fund_type, ...rankedEntry(row) }));
    const head = `{"kind":"fund_rankings","ranking_basis":"service_score","as_of":${JSON.stringify(asOf)},"limit":`;
    return ({ query }): JsonText | ApiError => {
      if (now() > servableUntil) return staleData;
      const fundType = query.fund_type;
      const results = rankedJson(entries, query.limit, fundType === "all" ? undefined : (entry) => entry.fund_type === fundType);
      return new JsonText(`${head}${query.limit},"fund_type":"${fundType}","results":${results}}`);
    };
  },
});
