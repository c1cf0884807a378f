// Funds: ranked by score in the fund rankings; named by news entities, funding-round investors and
// people's roles. A fund's portfolio is the projects of the verified rounds it invested in, its
// partners the people with a current role at it.
import { eligibilityThresholds, snapshotCaps } from "../../policy.ts";
import { defineFamily } from "../define.ts";
import { countBy, duplicate, overCap, visibilityCounts } from "../_sql.ts";
import { bit, nullable } from "../_values.ts";
import { fundSource } from "./source.ts";

const cap = eligibilityThresholds.listCap;

export const funds = defineFamily({
  family: "funds",
  file: "funds.jsonl",
  schema: fundSource,
  staging: {
    tables: {
      s_funds: {
        line: "INTEGER", id: "TEXT", slug: "TEXT", name: "TEXT", fund_type: "TEXT", score: "NUMERIC",
        score_updated_at: "DATETIME", hidden: "INTEGER", deleted: "INTEGER", prominence: "INTEGER",
      },
    },
    rows(r, line, to) {
      to("s_funds").push(line, r.id, r.slug, r.name, r.fund_type, r.score, r.score_updated_at, bit(r.hidden), bit(r.deleted), nullable(r.prominence));
    },
    indexSql: [
      "CREATE INDEX s_funds_id ON s_funds (id);",
      "CREATE INDEX s_funds_slug ON s_funds (slug);",
    ].join("\n"),
  },
  reference: { type: "fund", table: "s_funds", id: "id", kept: "k_funds", claimedBy: "id" },
  checks: () => [
    duplicate("s_funds", "funds.jsonl", "id", "id", "id"),
    duplicate("s_funds", "funds.jsonl", "slug", "slug", "slug"),
  ],
  observations: [{ table: "s_funds", column: "score_updated_at", line: "line", path: "'score_updated_at'" }],
  // The portfolio: one entry per project, its latest verified round the fund invested in. The
  // partners: one entry per person with a current role at the fund, the latest started first.
  eligibility: () => `
CREATE TABLE kept.k_funds AS SELECT * FROM s_funds WHERE hidden = 0 AND deleted = 0;
CREATE INDEX kept.k_funds_id ON k_funds (id);
CREATE TABLE kept.k_fund_portfolio AS SELECT fund_id, project_id,
    row_number() OVER (PARTITION BY fund_id ORDER BY announced_at DESC, project_slug) AS position
  FROM (SELECT f.id AS fund_id, r.project_id, p.slug AS project_slug, r.announced_at,
      row_number() OVER (PARTITION BY f.id, r.project_id ORDER BY r.announced_at DESC, r.id) AS latest
    FROM k_rounds r
      JOIN s_round_investors i ON i.project_line = r.project_line AND i.round_idx = r.idx AND i.type = 'fund'
      JOIN k_funds f ON f.id = i.id
      JOIN k_projects p ON p.id = r.project_id)
  WHERE latest = 1;
CREATE TABLE kept.k_fund_roles AS SELECT f.id AS fund_id, pe.id AS person_id, pe.slug AS person_slug, r.is_current, r.started_at, r.idx
  FROM s_roles r JOIN k_people pe ON pe.line = r.person_line JOIN k_funds f ON f.id = r.fund_id;
CREATE INDEX kept.k_fund_roles_person ON k_fund_roles (person_id);
CREATE TABLE kept.k_fund_partners AS SELECT fund_id, person_id,
    row_number() OVER (PARTITION BY fund_id ORDER BY started_at IS NULL, started_at DESC, person_slug) AS position
  FROM (SELECT *, row_number() OVER (PARTITION BY fund_id, person_id ORDER BY started_at IS NULL, started_at DESC, idx) AS latest
    FROM k_fund_roles WHERE is_current = 1)
  WHERE latest = 1;`,
  exclusions: () => ({
    ...visibilityCounts("s_funds"),
    over_list_cap: `(${overCap("k_fund_portfolio", "fund_id")} + ${overCap("k_fund_partners", "fund_id")})`,
  }),
  output: `
INSERT INTO funds (id, slug, name, fund_type, portfolio_count, partner_count)
  SELECT f.id, f.slug, f.name, f.fund_type, coalesce(p.n, 0), coalesce(r.n, 0)
  FROM k_funds f
    LEFT JOIN ${countBy("k_fund_portfolio", "fund_id")} p ON p.owner = f.id
    LEFT JOIN ${countBy("k_fund_partners", "fund_id")} r ON r.owner = f.id
  ORDER BY f.id;
INSERT INTO fund_portfolio SELECT fund_id, position, project_id
  FROM k_fund_portfolio WHERE position <= ${cap} ORDER BY fund_id, position;
INSERT INTO fund_partners SELECT fund_id, position, person_id
  FROM k_fund_partners WHERE position <= ${cap} ORDER BY fund_id, position;
`,
  search: { layout: "fund", curated: { table: "k_funds", id: "id" } },
  diff: "funds",
  curated: { funds: "(SELECT count(*) FROM s_funds)", fund_rankings: "(SELECT count(*) FROM s_funds)" },
  rankings: {
    fund_rankings: {
      sql: `
INSERT INTO fund_rankings (position, fund_id)
  SELECT row_number() OVER (ORDER BY score DESC, id), id FROM k_funds ORDER BY score DESC, id LIMIT ${snapshotCaps.fundRankings};`,
      asOf: "(SELECT min(f.score_updated_at) FROM fund_rankings r JOIN k_funds f ON f.id = r.fund_id)",
    },
  },
  stale: {
    fund_rankings: {
      locate: `SELECT 'funds.jsonl', f.line, 'score_updated_at', f.score_updated_at
      FROM main.fund_rankings r JOIN k_funds f ON f.id = r.fund_id ORDER BY f.score_updated_at, f.line LIMIT 1`,
    },
  },
});
