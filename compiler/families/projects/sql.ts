// Projects in SQL: the checks of their ids and references, which features, events, rounds, TVL and
// trend observations are kept, the exclusion counts, and the snapshot rows.
import type { ReferenceSql } from "../define.ts";
import { countBy, duplicate, intoProblems, overCap, quote, visibilityCounts } from "../_sql.ts";
import { cutoff, eligibilityThresholds as t } from "../../policy.ts";

/** A later item of a project's list repeating an earlier item's id. */
function nestedDuplicate(table: string, list: string, column: string): string {
  return `${intoProblems}
  SELECT 'projects.jsonl', project_line, printf('${list}[%d].${column}', idx),
    printf('duplicate ${column} %s (first at ${list}[%d])', json_quote(${column}), first)
  FROM (SELECT project_line, idx, ${column}, min(idx) OVER (PARTITION BY project_line, ${column}) AS first FROM ${table})
  WHERE idx > first;`;
}

export const projectChecks = (references: ReferenceSql): string[] => [
  duplicate("s_projects", "projects.jsonl", "id", "id", "id"),
  duplicate("s_projects", "projects.jsonl", "slug", "slug", "slug"),
  nestedDuplicate("s_features", "features", "feature_id"),
  nestedDuplicate("s_pevents", "events", "id"),
  nestedDuplicate("s_rounds", "funding", "id"),
  `${intoProblems} SELECT 'projects.jsonl', i.project_line, printf('funding[%d].investors[%d].id', i.round_idx, i.idx),
     printf('unknown %s %s', i.type, json_quote(i.id))
   FROM s_round_investors i WHERE NOT ${references.known("i.type", "i.id")};`,
];

export const projectObservations = [
  { table: "s_features", column: "last_verified_at", line: "project_line", path: "printf('features[%d].last_verified_at', idx)" },
  { table: "s_trend_observations", column: "observed_at", line: "project_line", path: "printf('trend[%d].observed_at', idx)" },
  { table: "s_tvl", column: "obs_date || 'T00:00:00.000Z'", line: "project_line", path: "'tvl.observations'" },
];

export function projectEligibility(compiledAt: Date): string {
  const tvlCutoff = quote(cutoff(compiledAt, t.tvlMaxAge));
  const trendCutoff = quote(cutoff(compiledAt, t.trendObservationMaxAge));
  return `
CREATE TABLE kept.k_projects AS SELECT * FROM s_projects WHERE hidden = 0 AND deleted = 0;
CREATE INDEX kept.k_projects_id ON k_projects (id);
CREATE INDEX kept.k_projects_line ON k_projects (line);
CREATE TABLE kept.k_features AS SELECT p.id AS project_id, f.*,
    row_number() OVER (PARTITION BY p.id ORDER BY f.last_verified_at DESC, f.feature_id) AS position
  FROM s_features f JOIN k_projects p ON p.line = f.project_line WHERE f.review_state = 'reviewed';
CREATE TABLE kept.k_pevents AS SELECT p.id AS project_id, e.*,
    row_number() OVER (PARTITION BY p.id ORDER BY e.occurred_at DESC, e.id) AS position
  FROM s_pevents e JOIN k_projects p ON p.line = e.project_line WHERE e.verified = 1;
CREATE TABLE kept.k_rounds AS SELECT p.id AS project_id, r.*,
    row_number() OVER (PARTITION BY p.id ORDER BY r.announced_at DESC, r.id) AS position
  FROM s_rounds r JOIN k_projects p ON p.line = r.project_line WHERE r.verified = 1;
CREATE TABLE kept.k_tvl_checked AS SELECT p.id AS project_id, v.*,
    CASE WHEN v.state <> 'confirmed' OR v.obs_series IS NOT v.series_id THEN 'tvl_mapping_inconsistent'
      WHEN v.obs_date IS NULL OR v.obs_date || 'T00:00:00.000Z' < ${tvlCutoff} THEN 'tvl_stale' END AS rule
  FROM s_tvl v JOIN k_projects p ON p.line = v.project_line;
CREATE TABLE kept.k_trend_checked AS SELECT p.id AS project_id, tr.*,
    CASE WHEN tr.observed_at < ${trendCutoff} THEN 'trend_observation_stale' END AS rule
  FROM s_trend tr JOIN k_projects p ON p.line = tr.project_line;`;
}

export const projectExclusions = {
  ...visibilityCounts("s_projects"),
  feature_not_reviewed: "(SELECT count(*) FROM s_features f JOIN k_projects p ON p.line = f.project_line WHERE f.review_state <> 'reviewed')",
  event_not_verified: "(SELECT count(*) FROM s_pevents e JOIN k_projects p ON p.line = e.project_line WHERE e.verified = 0)",
  round_not_verified: "(SELECT count(*) FROM s_rounds r JOIN k_projects p ON p.line = r.project_line WHERE r.verified = 0)",
  tvl_mapping_inconsistent: "(SELECT count(*) FROM k_tvl_checked WHERE rule = 'tvl_mapping_inconsistent')",
  tvl_stale: "(SELECT count(*) FROM k_tvl_checked WHERE rule = 'tvl_stale')",
  trend_observation_stale: "(SELECT count(*) FROM k_trend_checked WHERE rule = 'trend_observation_stale')",
  over_list_cap: `(${overCap("k_features", "project_id")} + ${overCap("k_pevents", "project_id")} + ${overCap("k_rounds", "project_id")})`,
};

const cap = t.listCap;

export const projectOutput = `
INSERT INTO projects (id, slug, name, feature_count, event_count, round_count)
  SELECT p.id, p.slug, p.name, coalesce(f.n, 0), coalesce(e.n, 0), coalesce(r.n, 0)
  FROM k_projects p
    LEFT JOIN ${countBy("k_features", "project_id")} f ON f.owner = p.id
    LEFT JOIN ${countBy("k_pevents", "project_id")} e ON e.owner = p.id
    LEFT JOIN ${countBy("k_rounds", "project_id")} r ON r.owner = p.id
  ORDER BY p.id;
INSERT INTO project_features
  SELECT project_id, position, feature_id, feature_name, display_name, category, status, primary_url, docs_url, app_url,
    chain_ids, last_verified_at
  FROM k_features WHERE position <= ${cap} ORDER BY project_id, position;
INSERT INTO project_events SELECT project_id, position, id, type, occurred_at
  FROM k_pevents WHERE position <= ${cap} ORDER BY project_id, position;
INSERT INTO funding_rounds SELECT project_id, position, round_type, amount_usd, announced_at
  FROM k_rounds WHERE position <= ${cap} ORDER BY project_id, position;
INSERT INTO project_tvl SELECT project_id, obs_date, obs_tvl FROM k_tvl_checked WHERE rule IS NULL ORDER BY project_id;
`;
