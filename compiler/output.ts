// Step 6a: the entity tables of the snapshot, from the kept (k_*) staging tables, each inserted
// in primary-key order so that the file is reproducible.
import { eligibilityThresholds } from "./policy.ts";

const cap = eligibilityThresholds.listCap;
const countBy = (table: string, owner: string): string => `(SELECT ${owner} AS owner, count(*) AS n FROM ${table} GROUP BY ${owner})`;

export const entityOutputSql = `
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

INSERT INTO tokens SELECT id, slug, symbol, name FROM k_tokens ORDER BY id;
INSERT INTO tokenomics (token_id, as_of, model_type)
  SELECT f.token_id, min(f.verified_at), max(CASE WHEN f.field = 'model_type' THEN s.model_type END)
  FROM k_tokenomics f JOIN s_tokenomics_fields s ON s.token_line = f.token_line AND s.field = f.field
  GROUP BY f.token_id ORDER BY f.token_id;
INSERT INTO tokenomics_allocations
  SELECT f.token_id, a.idx + 1, a.bucket, a.percent_supply, a.amount_native
  FROM k_tokenomics f JOIN s_allocations a ON a.token_line = f.token_line
  WHERE f.field = 'allocations' ORDER BY f.token_id, a.idx;
INSERT INTO tokenomics_vesting
  SELECT f.token_id, v.idx + 1, v.allocation_bucket, v.start_at, v.cliff_at, v.end_at, v.cadence, v.percent_unlocked_at_tge, v.amount_native
  FROM k_tokenomics f JOIN s_vesting v ON v.token_line = f.token_line
  WHERE f.field = 'vesting_schedules' ORDER BY f.token_id, v.idx;
INSERT INTO tokenomics_utilities
  SELECT f.token_id, u.idx + 1, u.utility_type
  FROM k_tokenomics f JOIN s_utilities u ON u.token_line = f.token_line
  WHERE f.field = 'utilities' ORDER BY f.token_id, u.idx;

INSERT INTO people (id, slug, full_name, investment_count, role_count, is_search_candidate)
  SELECT p.id, p.slug, p.full_name, coalesce(i.n, 0), coalesce(r.n, 0), (coalesce(i.n, 0) + coalesce(r.n, 0)) > 0
  FROM k_people p
    LEFT JOIN ${countBy("k_investments", "person_id")} i ON i.owner = p.id
    LEFT JOIN ${countBy("k_roles", "person_id")} r ON r.owner = p.id
  ORDER BY p.id;
INSERT INTO person_investments SELECT person_id, position, project_id
  FROM k_investments WHERE position <= ${cap} ORDER BY person_id, position;
INSERT INTO person_roles SELECT person_id, position, project_id, is_current
  FROM k_roles WHERE position <= ${cap} ORDER BY person_id, position;

INSERT INTO funds SELECT id, slug, name, fund_type FROM k_funds ORDER BY id;
INSERT INTO stocks SELECT id, slug, name, ticker, exchange, region, crypto_angle, ipo_date, is_pre_ipo FROM k_stocks ORDER BY id;
INSERT INTO news SELECT id, title, summary, published_at, sentiment, language FROM k_news ORDER BY id;
INSERT INTO news_entities
  SELECT news_id, row_number() OVER (PARTITION BY news_id ORDER BY idx), type, id, slug, name FROM (
    SELECT n.id AS news_id, e.idx, e.type, e.id,
      coalesce(p.slug, t.slug, pe.slug, f.slug) AS slug, coalesce(p.name, t.name, pe.full_name, f.name) AS name
    FROM k_news n JOIN s_news_entities e ON e.news_line = n.line
      LEFT JOIN k_projects p ON e.type = 'project' AND p.id = e.id
      LEFT JOIN k_tokens t ON e.type = 'token' AND t.id = e.id
      LEFT JOIN k_people pe ON e.type = 'person' AND pe.id = e.id
      LEFT JOIN k_funds f ON e.type = 'fund' AND f.id = e.id)
  WHERE slug IS NOT NULL
  ORDER BY news_id, idx;
INSERT INTO events SELECT id, slug, name, event_type, start_date, end_date, city, country, website_url FROM k_events ORDER BY id;
INSERT INTO x_accounts SELECT xid, linked_type, linked_id FROM k_x ORDER BY xid;
INSERT INTO x_handle_index SELECT handle_hash, xid FROM k_x ORDER BY handle_hash;
`;
