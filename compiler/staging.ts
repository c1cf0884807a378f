// Step 2b: flatten the staged JSONB records into typed staging tables (one per family and per
// nested list), with date-times normalised to milliseconds, so that checks, eligibility and
// output are plain SQL over indexed columns.

/** ISO 8601 UTC with milliseconds, e.g. 2026-03-01T12:00:00.000Z. */
export const isoMs = (expr: string): string => `strftime('%Y-%m-%dT%H:%M:%fZ', ${expr})`;

const visibility = "coalesce(doc->>'hidden', 0) AS hidden, coalesce(doc->>'deleted', 0) AS deleted";

export const flattenSql = `
CREATE TABLE s_projects AS
  SELECT line, doc->>'id' AS id, doc->>'slug' AS slug, doc->>'name' AS name, ${visibility} FROM r_projects;
CREATE TABLE s_features AS
  SELECT r.line AS project_line, j.key AS idx, j.value->>'feature_id' AS feature_id,
    j.value->>'feature_name' AS feature_name, j.value->>'display_name' AS display_name,
    j.value->>'category' AS category, j.value->>'status' AS status, j.value->>'primary_url' AS primary_url,
    j.value->>'docs_url' AS docs_url, j.value->>'app_url' AS app_url,
    coalesce(json(j.value->'chain_ids'), '[]') AS chain_ids, ${isoMs("j.value->>'last_verified_at'")} AS last_verified_at,
    j.value->>'review_state' AS review_state
  FROM r_projects r, jsonb_each(r.doc, '$.features') j;
CREATE TABLE s_pevents AS
  SELECT r.line AS project_line, j.key AS idx, j.value->>'id' AS id, j.value->>'type' AS type,
    ${isoMs("j.value->>'occurred_at'")} AS occurred_at, j.value->>'verified' AS verified
  FROM r_projects r, jsonb_each(r.doc, '$.events') j;
CREATE TABLE s_rounds AS
  SELECT r.line AS project_line, j.key AS idx, j.value->>'id' AS id, j.value->>'round_type' AS round_type,
    j.value->>'amount_usd' AS amount_usd, ${isoMs("j.value->>'announced_at'")} AS announced_at, j.value->>'verified' AS verified
  FROM r_projects r, jsonb_each(r.doc, '$.funding') j;
CREATE TABLE s_round_investors AS
  SELECT r.line AS project_line, j.key AS round_idx, i.key AS idx, i.value->>'type' AS type, i.value->>'id' AS id
  FROM r_projects r, jsonb_each(r.doc, '$.funding') j, jsonb_each(j.value, '$.investors') i;
CREATE TABLE s_tvl AS
  SELECT r.line AS project_line, r.doc->>'$.tvl.mapping.state' AS state, r.doc->>'$.tvl.mapping.series_id' AS series_id,
    (SELECT o.value->>'date' FROM jsonb_each(r.doc, '$.tvl.observations') o ORDER BY o.value->>'date' DESC, o.key DESC LIMIT 1) AS obs_date,
    (SELECT o.value->>'tvl_usd' FROM jsonb_each(r.doc, '$.tvl.observations') o ORDER BY o.value->>'date' DESC, o.key DESC LIMIT 1) AS obs_tvl,
    (SELECT o.value->>'series_id' FROM jsonb_each(r.doc, '$.tvl.observations') o ORDER BY o.value->>'date' DESC, o.key DESC LIMIT 1) AS obs_series
  FROM r_projects r WHERE r.doc->>'$.tvl.mapping.state' IS NOT NULL;
CREATE TABLE s_trend AS
  SELECT project_line, observed_at, hot_tier, score FROM (
    SELECT r.line AS project_line, ${isoMs("j.value->>'observed_at'")} AS observed_at, j.value->>'hot_tier' AS hot_tier,
      j.value->>'score' AS score,
      row_number() OVER (PARTITION BY r.line ORDER BY ${isoMs("j.value->>'observed_at'")} DESC, j.value->>'score' DESC, j.key) AS rn
    FROM r_projects r, jsonb_each(r.doc, '$.trend') j) WHERE rn = 1;

CREATE TABLE s_tokens AS
  SELECT line, doc->>'id' AS id, doc->>'slug' AS slug, doc->>'symbol' AS symbol, doc->>'name' AS name,
    doc->>'project_id' AS project_id, doc->>'benchmark' AS benchmark, ${visibility},
    ${isoMs("doc->>'$.market.observed_at'")} AS observed_at, doc->>'$.market.rank' AS rank,
    doc->>'$.market.price_usd' AS price_usd, doc->>'$.market.market_cap_usd' AS market_cap_usd,
    doc->>'$.market.volume_24h_usd' AS volume_24h_usd, doc->>'$.market.change_24h_pct' AS change_24h_pct,
    doc->>'$.market.change_7d_pct' AS change_7d_pct, coalesce(doc->>'$.market.market_eligible', 1) AS market_eligible
  FROM r_tokens;
CREATE TABLE s_tokenomics_fields AS
  SELECT r.line AS token_line, f.key AS field, ${isoMs("f.value->>'verified_at'")} AS verified_at, f.value->>'confidence' AS confidence
  FROM r_tokens r, jsonb_each(r.doc, '$.tokenomics') f
  WHERE f.key IN ('model_type', 'allocations', 'vesting_schedules', 'utilities');

CREATE TABLE s_people AS
  SELECT line, doc->>'id' AS id, doc->>'slug' AS slug, doc->>'full_name' AS full_name, ${visibility} FROM r_people;
CREATE TABLE s_investments AS
  SELECT r.line AS person_line, j.key AS idx, j.value->>'project_id' AS project_id, j.value->>'round_id' AS round_id,
    ${isoMs("j.value->>'invested_at'")} AS invested_at, j.value->>'verified' AS verified
  FROM r_people r, jsonb_each(r.doc, '$.investments') j;
CREATE TABLE s_roles AS
  SELECT r.line AS person_line, j.key AS idx, j.value->>'project_id' AS project_id, j.value->>'is_current' AS is_current,
    j.value->>'started_at' AS started_at
  FROM r_people r, jsonb_each(r.doc, '$.roles') j;

CREATE TABLE s_funds AS
  SELECT line, doc->>'id' AS id, doc->>'slug' AS slug, doc->>'name' AS name, doc->>'fund_type' AS fund_type,
    doc->>'score' AS score, ${isoMs("doc->>'score_updated_at'")} AS score_updated_at, ${visibility} FROM r_funds;
CREATE TABLE s_stocks AS
  SELECT line, doc->>'id' AS id, doc->>'slug' AS slug, doc->>'name' AS name, doc->>'ticker' AS ticker,
    doc->>'exchange' AS exchange, doc->>'region' AS region, doc->>'crypto_angle' AS crypto_angle,
    doc->>'ipo_date' AS ipo_date, doc->>'is_pre_ipo' AS is_pre_ipo, ${visibility} FROM r_stocks;
CREATE TABLE s_news AS
  SELECT line, doc->>'id' AS id, doc->>'title' AS title, doc->>'summary' AS summary,
    ${isoMs("doc->>'published_at'")} AS published_at, doc->>'sentiment' AS sentiment, doc->>'language' AS language,
    doc->>'curated' AS curated, ${visibility} FROM r_news;
CREATE TABLE s_news_entities AS
  SELECT r.line AS news_line, j.key AS idx, j.value->>'type' AS type, j.value->>'id' AS id
  FROM r_news r, jsonb_each(r.doc, '$.entities') j;
CREATE TABLE s_events AS
  SELECT line, doc->>'id' AS id, doc->>'slug' AS slug, doc->>'name' AS name, doc->>'event_type' AS event_type,
    doc->>'start_date' AS start_date, doc->>'end_date' AS end_date, doc->>'city' AS city, doc->>'country' AS country,
    doc->>'website_url' AS website_url, doc->>'dates_validated' AS dates_validated, ${visibility} FROM r_events;
CREATE TABLE s_x AS
  SELECT line, xid, handle_hash, doc->>'$.linked_entity.type' AS linked_type, doc->>'$.linked_entity.id' AS linked_id, ${visibility}
  FROM r_x_accounts;
CREATE TABLE s_trending AS
  SELECT line, doc->>'$.entity.type' AS entity_type, coalesce(xid, doc->>'$.entity.id') AS entity_id,
    doc->>'day' AS day, ${isoMs("doc->>'observed_at'")} AS observed_at, doc->>'score' AS score
  FROM r_trending;

CREATE INDEX s_projects_id ON s_projects (id);
CREATE INDEX s_projects_slug ON s_projects (slug);
CREATE INDEX s_projects_line ON s_projects (line);
CREATE INDEX s_features_parent ON s_features (project_line);
CREATE INDEX s_pevents_parent ON s_pevents (project_line);
CREATE INDEX s_rounds_parent ON s_rounds (project_line, id);
CREATE INDEX s_tvl_parent ON s_tvl (project_line);
CREATE INDEX s_trend_parent ON s_trend (project_line);
CREATE INDEX s_tokens_id ON s_tokens (id);
CREATE INDEX s_tokenomics_parent ON s_tokenomics_fields (token_line);
CREATE INDEX s_people_id ON s_people (id);
CREATE INDEX s_people_slug ON s_people (slug);
CREATE INDEX s_investments_parent ON s_investments (person_line);
CREATE INDEX s_roles_parent ON s_roles (person_line);
CREATE INDEX s_funds_id ON s_funds (id);
CREATE INDEX s_funds_slug ON s_funds (slug);
CREATE INDEX s_stocks_id ON s_stocks (id);
CREATE INDEX s_stocks_slug ON s_stocks (slug);
CREATE INDEX s_news_id ON s_news (id);
CREATE INDEX s_news_entities_parent ON s_news_entities (news_line);
CREATE INDEX s_events_id ON s_events (id);
CREATE INDEX s_events_slug ON s_events (slug);
CREATE INDEX s_x_id ON s_x (xid);
CREATE INDEX s_trending_day ON s_trending (day, entity_type, entity_id);
`;
