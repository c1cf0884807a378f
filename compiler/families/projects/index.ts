// Projects: identity, reviewed features, verified events and funding rounds, the daily TVL series
// with its mapping, and trend observations; named by tokens, people, news, X accounts and trending.
import { prominenceScores, snapshotCaps } from "../../policy.ts";
import { defineFamily } from "../define.ts";
import { projectSource } from "./source.ts";
import { projectChecks, projectEligibility, projectExclusions, projectObservations, projectOutput } from "./sql.ts";
import { projectStaging } from "./staging.ts";

export const projects = defineFamily({
  family: "projects",
  file: "projects.jsonl",
  schema: projectSource,
  staging: projectStaging,
  reference: { type: "project", table: "s_projects", id: "id", kept: "k_projects", claimedBy: "id" },
  checks: projectChecks,
  observations: projectObservations,
  eligibility: projectEligibility,
  exclusions: () => projectExclusions,
  output: projectOutput,
  search: {
    layout: "project",
    curated: { table: "k_projects", id: "id" },
    signals: [`SELECT project_id, ${prominenceScores.tvl("tvl_usd")} FROM project_tvl`],
    appearances: ["SELECT project_id FROM trending_projects"],
  },
  diff: "projects",
  curated: {
    projects: "(SELECT count(*) FROM s_projects)",
    project_tvl: "(SELECT count(*) FROM s_tvl)",
    trending_projects: "(SELECT count(DISTINCT project_line) FROM s_trend_observations)",
  },
  rankings: {
    trending_projects: {
      sql: `
INSERT INTO trending_projects (position, project_id, hot_tier)
  SELECT row_number() OVER (ORDER BY score DESC, project_id), project_id, hot_tier
  FROM k_trend_checked WHERE rule IS NULL ORDER BY score DESC, project_id LIMIT ${snapshotCaps.trendingProjects};`,
      asOf: "(SELECT min(t.observed_at) FROM trending_projects r JOIN k_trend_checked t ON t.project_id = r.project_id)",
    },
  },
  stale: {
    trending_projects: {
      staleRule: "trend_observation_stale",
      locate: "SELECT 'projects.jsonl', project_line, 'trend', observed_at FROM k_trend_checked ORDER BY observed_at DESC, project_line LIMIT 1",
    },
  },
});
