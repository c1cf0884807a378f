// 10. GET /v1/projects/trending (hidden until release-approved): the ≤30-project trend snapshot,
// filtered by hot tier inside the snapshot; ranks are recomputed after the filter.
import { z } from "zod";
import { ApiError, staleData } from "../errors.ts";
import { dateTime, enumQuery, limitApplied, limitQuery, rankOf, ranked } from "./_schemas.ts";
import { isFresh } from "./_freshness.ts";
import { defineOperation } from "./operation.ts";

export const TRENDING_PROJECTS_DEFAULT_LIMIT = 30;
/** The snapshot holds at most 30 projects. */
const TRENDING_PROJECTS_MAX_LIMIT = 30;
export const hotTiers = ["viral", "hot", "rising", "early", "watch"] as const;

export const listTrendingProjectsRequest = z.strictObject({
  params: z.strictObject({}),
  query: z.strictObject({ tier: enumQuery(hotTiers), limit: limitQuery(TRENDING_PROJECTS_MAX_LIMIT, TRENDING_PROJECTS_DEFAULT_LIMIT) }),
});

const trendingProject = z.strictObject({
  type: z.literal("project"),
  rank: rankOf(TRENDING_PROJECTS_MAX_LIMIT),
  id: z.string(),
  slug: z.string(),
  name: z.string(),
  hot_tier: z.enum(hotTiers),
});

export const listTrendingProjectsResponse = z.strictObject({
  kind: z.literal("trending_projects"),
  ranking_basis: z.literal("service_trending_signal"),
  as_of: dateTime,
  limit: limitApplied(TRENDING_PROJECTS_MAX_LIMIT),
  tier: z.enum(hotTiers).nullable(),
  results: z.array(trendingProject),
});
export type ListTrendingProjectsResponse = z.output<typeof listTrendingProjectsResponse>;

export const listTrendingProjects = defineOperation({
  id: "list_trending_projects",
  request: listTrendingProjectsRequest,
  response: listTrendingProjectsResponse,
  prepare({ snapshot, now }) {
    const asOf = snapshot.prepare<[], string | null>("SELECT as_of FROM snapshots WHERE name = 'trending_projects'").pluck().get() ?? null;
    const trending = snapshot.prepare<[{ tier: string | null; limit: number }], z.output<typeof trendingProject>>(`
      SELECT 'project' AS type, 0 AS rank,
             p.id AS id, p.slug AS slug, p.name AS name, t.hot_tier AS hot_tier
      FROM trending_projects t JOIN projects p ON p.id = t.project_id
      WHERE @tier IS NULL OR t.hot_tier = @tier
      ORDER BY t.position LIMIT @limit`);
    return ({ query }): ListTrendingProjectsResponse | ApiError => {
      if (asOf === null || !isFresh(asOf, "trending_projects", now())) return staleData;
      const tier = query.tier ?? null;
      const limit = query.limit;
      return {
        kind: "trending_projects",
        ranking_basis: "service_trending_signal",
        as_of: asOf,
        limit,
        tier,
        results: ranked(trending.all({ tier, limit })),
      };
    };
  },
});
