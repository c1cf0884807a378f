// 9. GET /v1/projects/{slug}/market: one fresh daily TVL snapshot; stale or inconsistent → 404.
import { z } from "zod";
import { missingPart, notFound } from "../errors.ts";
import { date, noQuery, pathSlug, projectRef } from "./_schemas.ts";
import { freshUntil, isFresh } from "./_freshness.ts";
import { defineOperation } from "./operation.ts";

export const getProjectMarketRequest = z.strictObject({
  params: z.strictObject({ slug: pathSlug }),
  query: noQuery,
});

export const getProjectMarketResponse = z.strictObject({
  kind: z.literal("project_market"),
  id: z.string(),
  project: projectRef,
  as_of: date,
  tvl_usd: z.number(),
});
export type GetProjectMarketResponse = z.output<typeof getProjectMarketResponse>;

interface MarketRow { id: string; slug: string; name: string; as_of: string | null; tvl_usd: number | null }

/** A served project without a TVL, or whose TVL is older than its bound (decision 32). */
const noFreshTvl = missingPart("project", "fresh TVL snapshot");

export const getProjectMarket = defineOperation({
  id: "get_project_market",
  request: getProjectMarketRequest,
  response: getProjectMarketResponse,
  keepAnswers: { until: (data) => freshUntil(data.as_of, "project_tvl") },
  missingParts: [noFreshTvl],
  prepare({ snapshot, now }) {
    // Inconsistent mappings never reach project_tvl (compile time); staleness is judged here.
    const marketBySlug = snapshot.prepare<[string], MarketRow>(`
      SELECT p.id AS id, p.slug AS slug, p.name AS name, t.as_of AS as_of, t.tvl_usd AS tvl_usd
      FROM projects p LEFT JOIN project_tvl t ON t.project_id = p.id WHERE p.slug = ?`);
    return ({ params }): GetProjectMarketResponse | typeof notFound => {
      const row = marketBySlug.get(params.slug);
      if (row === undefined) return notFound;
      if (row.as_of === null || row.tvl_usd === null || !isFresh(row.as_of, "project_tvl", now())) return noFreshTvl;
      return {
        kind: "project_market",
        id: row.id,
        project: { id: row.id, slug: row.slug, name: row.name },
        as_of: row.as_of,
        tvl_usd: row.tvl_usd,
      };
    };
  },
});
