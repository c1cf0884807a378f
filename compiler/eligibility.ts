// Step 5: the eligibility policy of compiler/policy.ts as SQL. Builds the k_* tables (the
// records and list items that are kept, with their deterministic position) in the staging
// database, and counts every excluded record per family and rule for the manifest.
import { cutoff, eligibilityRules, eligibilityThresholds as t } from "./policy.ts";

const q = (s: string): string => `'${s.replace(/'/g, "''")}'`;

export function eligibilitySql(compiledAt: Date): string {
  const tokenomicsCutoff = q(cutoff(compiledAt, t.tokenomicsFieldMaxAge));
  const marketCutoff = q(cutoff(compiledAt, t.marketObservationMaxAge));
  const tvlCutoff = q(cutoff(compiledAt, t.tvlMaxAge));
  const trendCutoff = q(cutoff(compiledAt, t.trendObservationMaxAge));
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
  FROM s_trend tr JOIN k_projects p ON p.line = tr.project_line;

CREATE TABLE kept.k_tokens AS SELECT * FROM s_tokens WHERE hidden = 0 AND deleted = 0;
CREATE INDEX kept.k_tokens_id ON k_tokens (id);
CREATE TABLE kept.k_market_checked AS SELECT *,
    CASE WHEN observed_at < ${marketCutoff} THEN 'market_observation_stale'
      WHEN rank > ${t.marketUniverseMaxRank} THEN 'market_outside_top_200'
      WHEN market_eligible = 0 THEN 'market_ineligible' END AS rule
  FROM k_tokens WHERE observed_at IS NOT NULL;
CREATE TABLE kept.k_market AS SELECT * FROM (
    SELECT *, row_number() OVER (ORDER BY market_cap_usd DESC, id) AS position FROM k_market_checked WHERE rule IS NULL)
  WHERE position <= ${t.marketUniverseMaxRank};
CREATE TABLE kept.k_tokenomics_checked AS SELECT k.id AS token_id, k.line AS token_line, f.field, f.verified_at,
    CASE WHEN f.verified_at < ${tokenomicsCutoff} THEN 'tokenomics_field_stale'
      WHEN f.confidence < ${t.tokenomicsMinConfidence} THEN 'tokenomics_field_low_confidence' END AS rule
  FROM s_tokenomics_fields f JOIN k_tokens k ON k.line = f.token_line;
CREATE TABLE kept.k_tokenomics AS SELECT token_id, token_line, field, verified_at FROM k_tokenomics_checked WHERE rule IS NULL;

CREATE TABLE kept.k_people AS SELECT * FROM s_people WHERE hidden = 0 AND deleted = 0;
CREATE INDEX kept.k_people_id ON k_people (id);
CREATE TABLE kept.k_investments AS SELECT *,
    row_number() OVER (PARTITION BY person_id ORDER BY invested_at DESC, project_slug) AS position
  FROM (SELECT pe.id AS person_id, pr.id AS project_id, pr.slug AS project_slug, i.invested_at,
      row_number() OVER (PARTITION BY pe.id, pr.id ORDER BY i.invested_at DESC, i.idx) AS latest
    FROM s_investments i JOIN k_people pe ON pe.line = i.person_line JOIN k_projects pr ON pr.id = i.project_id
    WHERE i.verified = 1)
  WHERE latest = 1;
CREATE TABLE kept.k_roles AS SELECT pe.id AS person_id, pr.id AS project_id, r.is_current,
    row_number() OVER (PARTITION BY pe.id ORDER BY r.is_current DESC, r.started_at IS NULL, r.started_at DESC, pr.slug, r.idx) AS position
  FROM s_roles r JOIN k_people pe ON pe.line = r.person_line JOIN k_projects pr ON pr.id = r.project_id;

CREATE TABLE kept.k_funds AS SELECT * FROM s_funds WHERE hidden = 0 AND deleted = 0;
CREATE INDEX kept.k_funds_id ON k_funds (id);
CREATE TABLE kept.k_stocks AS SELECT * FROM s_stocks WHERE hidden = 0 AND deleted = 0;
CREATE TABLE kept.k_events AS SELECT * FROM s_events WHERE hidden = 0 AND deleted = 0 AND dates_validated = 1;
CREATE TABLE kept.k_news AS SELECT * FROM s_news WHERE hidden = 0 AND deleted = 0 AND curated = 1;
CREATE TABLE kept.k_x AS SELECT * FROM s_x WHERE hidden = 0 AND deleted = 0;
CREATE INDEX kept.k_x_id ON k_x (xid);
`;
}

/** Whether an entity of a given type is kept, as a correlated SQL expression. */
export const eligibleEntity = (typeColumn: string, idColumn: string): string => `CASE ${typeColumn}
  WHEN 'project' THEN EXISTS (SELECT 1 FROM k_projects k WHERE k.id = ${idColumn})
  WHEN 'token' THEN EXISTS (SELECT 1 FROM k_tokens k WHERE k.id = ${idColumn})
  WHEN 'person' THEN EXISTS (SELECT 1 FROM k_people k WHERE k.id = ${idColumn})
  WHEN 'fund' THEN EXISTS (SELECT 1 FROM k_funds k WHERE k.id = ${idColumn})
  WHEN 'x_account' THEN EXISTS (SELECT 1 FROM k_x k WHERE k.xid = ${idColumn})
  ELSE 0 END`;

const cap = t.listCap;
const overCap = (table: string, owner: string): string =>
  `(SELECT coalesce(sum(n - ${cap}), 0) FROM (SELECT count(*) AS n FROM ${table} GROUP BY ${owner}) WHERE n > ${cap})`;
const visibilityCounts = (table: string): Record<string, string> => ({
  hidden: `(SELECT count(*) FROM ${table} WHERE hidden = 1)`,
  deleted: `(SELECT count(*) FROM ${table} WHERE hidden = 0 AND deleted = 1)`,
});

/** One SQL count per (family, rule); families and rules are those of the policy table. */
function exclusionCounts(liveCutoff: string): Record<string, Record<string, string>> {
  return {
    projects: {
      ...visibilityCounts("s_projects"),
      feature_not_reviewed: "(SELECT count(*) FROM s_features f JOIN k_projects p ON p.line = f.project_line WHERE f.review_state <> 'reviewed')",
      event_not_verified: "(SELECT count(*) FROM s_pevents e JOIN k_projects p ON p.line = e.project_line WHERE e.verified = 0)",
      round_not_verified: "(SELECT count(*) FROM s_rounds r JOIN k_projects p ON p.line = r.project_line WHERE r.verified = 0)",
      tvl_mapping_inconsistent: "(SELECT count(*) FROM k_tvl_checked WHERE rule = 'tvl_mapping_inconsistent')",
      tvl_stale: "(SELECT count(*) FROM k_tvl_checked WHERE rule = 'tvl_stale')",
      trend_observation_stale: "(SELECT count(*) FROM k_trend_checked WHERE rule = 'trend_observation_stale')",
      over_list_cap: `(${overCap("k_features", "project_id")} + ${overCap("k_pevents", "project_id")} + ${overCap("k_rounds", "project_id")})`,
    },
    tokens: {
      ...visibilityCounts("s_tokens"),
      tokenomics_field_stale: "(SELECT count(*) FROM k_tokenomics_checked WHERE rule = 'tokenomics_field_stale')",
      tokenomics_field_low_confidence: "(SELECT count(*) FROM k_tokenomics_checked WHERE rule = 'tokenomics_field_low_confidence')",
      market_observation_stale: "(SELECT count(*) FROM k_market_checked WHERE rule = 'market_observation_stale')",
      market_outside_top_200: "(SELECT count(*) FROM k_market_checked WHERE rule = 'market_outside_top_200' OR (rule IS NULL AND id NOT IN (SELECT id FROM k_market)))",
      market_ineligible: "(SELECT count(*) FROM k_market_checked WHERE rule = 'market_ineligible')",
      reference_ineligible: "(SELECT count(*) FROM k_tokens WHERE project_id IS NOT NULL AND project_id NOT IN (SELECT id FROM k_projects))",
    },
    people: {
      ...visibilityCounts("s_people"),
      investment_not_verified: "(SELECT count(*) FROM s_investments i JOIN k_people p ON p.line = i.person_line WHERE i.verified = 0)",
      reference_ineligible: `((SELECT count(*) FROM s_investments i JOIN k_people p ON p.line = i.person_line
          WHERE i.verified = 1 AND i.project_id NOT IN (SELECT id FROM k_projects))
        + (SELECT count(*) FROM s_roles r JOIN k_people p ON p.line = r.person_line WHERE r.project_id NOT IN (SELECT id FROM k_projects)))`,
      over_list_cap: `(${overCap("k_investments", "person_id")} + ${overCap("k_roles", "person_id")})`,
    },
    funds: visibilityCounts("s_funds"),
    stocks: visibilityCounts("s_stocks"),
    news: {
      ...visibilityCounts("s_news"),
      news_not_curated: "(SELECT count(*) FROM s_news WHERE hidden = 0 AND deleted = 0 AND curated = 0)",
      reference_ineligible: `(SELECT count(*) FROM s_news_entities e JOIN k_news n ON n.line = e.news_line WHERE NOT ${eligibleEntity("e.type", "e.id")})`,
    },
    events: { ...visibilityCounts("s_events"), event_dates_not_validated: "(SELECT count(*) FROM s_events WHERE hidden = 0 AND deleted = 0 AND dates_validated = 0)" },
    x_accounts: visibilityCounts("s_x"),
    trending: {
      trending_signal_stale: `(SELECT count(*) FROM s_trending WHERE day = 'live' AND observed_at < ${q(liveCutoff)})`,
      reference_ineligible: `(SELECT count(*) FROM s_trending s WHERE NOT (day = 'live' AND observed_at < ${q(liveCutoff)}) AND NOT ${eligibleEntity("s.entity_type", "s.entity_id")})`,
    },
  };
}

/**
 * One query counting every excluded record: a row (family, rule, count) per rule of the policy
 * table that applies to the family, in the policy's order. Read-only over the staging and k_* tables.
 */
export function exclusionCountsQuery(compiledAt: Date): string {
  const sql = exclusionCounts(cutoff(compiledAt, t.liveTrendingSignalMaxAge));
  const families = [...new Set(eligibilityRules.flatMap((r) => r.families))].sort();
  const selects: string[] = [];
  for (const family of families) {
    for (const rule of eligibilityRules) {
      if (!rule.families.includes(family)) continue;
      const expr = sql[family]?.[rule.id];
      if (expr === undefined) throw new Error(`no exclusion count for ${family}/${rule.id}`);
      selects.push(`SELECT ${q(family)}, ${q(rule.id)}, ${expr}`);
    }
  }
  return selects.join("\nUNION ALL ");
}

/** `{ family: { rule: count } }` from the rows of exclusionCountsQuery. */
export function exclusionRecord(rows: readonly unknown[][]): Record<string, Record<string, number>> {
  const excluded: Record<string, Record<string, number>> = {};
  for (const [family, rule, count] of rows as Array<[string, string, number]>) (excluded[family] ??= {})[rule] = count;
  return excluded;
}
