// 22. GET /v1/narratives: the narrative rankings, at most 30 curated narratives ranked by the
// service's trend signal (decision 31), fresh for 24 hours.
import { z } from "zod";
import { ApiError, staleData } from "../errors.ts";
import { JsonText } from "../prebuilt-json.ts";
import { dateTime, limitApplied, limitQuery, rankOf } from "./_schemas.ts";
import { freshUntil } from "./_freshness.ts";
import { rankedEntry, rankedJson } from "./_ranked-json.ts";
import { defineOperation } from "./operation.ts";

/** Default and maximum: the whole snapshot (decision 31). */
export const NARRATIVES_DEFAULT_LIMIT = 30;

export const listNarrativesRequest = z.strictObject({
  params: z.strictObject({}),
  query: z.strictObject({ limit: limitQuery(NARRATIVES_DEFAULT_LIMIT, NARRATIVES_DEFAULT_LIMIT) }),
});

const rankedNarrative = z.strictObject({
  type: z.literal("narrative"),
  rank: rankOf(NARRATIVES_DEFAULT_LIMIT),
  id: z.string(),
  slug: z.string(),
  name: z.string(),
});

export const listNarrativesResponse = z.strictObject({
  kind: z.literal("narratives"),
  ranking_basis: z.literal("service_trending_signal"),
  as_of: dateTime,
  limit: limitApplied(NARRATIVES_DEFAULT_LIMIT),
  results: z.array(rankedNarrative),
});
export type ListNarrativesResponse = z.output<typeof listNarrativesResponse>;

export const listNarratives = defineOperation({
  id: "list_narratives",
  request: listNarrativesRequest,
  response: listNarrativesResponse,
  prepare({ snapshot, now }) {
    const asOf = snapshot.prepare<[], string | null>("SELECT as_of FROM snapshots WHERE name = 'narrative_rankings'").pluck().get() ?? null;
    const servableUntil = freshUntil(asOf, "narrative_rankings");
    // The whole ranking, serialised once: a request numbers and concatenates (_ranked-json.ts).
    const entries = snapshot.prepare<[], z.output<typeof rankedNarrative>>(`
      SELECT 'narrative' AS type, 0 AS rank, n.id AS id, n.slug AS slug, n.name AS name
      FROM narrative_rankings r JOIN narratives n ON n.id = r.narrative_id
      ORDER BY r.position`).all().map(rankedEntry);
    const head = `{"kind":"narratives","ranking_basis":"service_trending_signal","as_of":${JSON.stringify(asOf)},"limit":`;
    return ({ query }): JsonText | ApiError => {
      if (now() > servableUntil) return staleData;
      return new JsonText(`${head}${query.limit},"results":${rankedJson(entries, query.limit)}}`);
    };
  },
});
