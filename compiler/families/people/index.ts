// People: identity, verified investments, and roles in projects and funds (a fund's current ones
// make its partners, funds/index.ts); named by news entities, funding-round investors, X accounts
// and trending entries.
import { defineFamily } from "../define.ts";
import { countBy, duplicate, intoProblems, overCap, visibilityCounts } from "../_sql.ts";
import { bit, list, nullable } from "../_values.ts";
import { eligibilityThresholds } from "../../policy.ts";
import { personSource } from "./source.ts";

const cap = eligibilityThresholds.listCap;

export const people = defineFamily({
  family: "people",
  file: "people.jsonl",
  schema: personSource,
  staging: {
    tables: {
      s_people: { line: "INTEGER", id: "TEXT", slug: "TEXT", full_name: "TEXT", hidden: "INTEGER", deleted: "INTEGER", prominence: "INTEGER" },
      s_investments: {
        person_line: "INTEGER", idx: "INTEGER", project_id: "TEXT", round_id: "TEXT", invested_at: "DATETIME", verified: "INTEGER",
      },
      s_roles: { person_line: "INTEGER", idx: "INTEGER", project_id: "TEXT", fund_id: "TEXT", is_current: "INTEGER", started_at: "TEXT" },
    },
    rows(r, line, to) {
      to("s_people").push(line, r.id, r.slug, r.full_name, bit(r.hidden), bit(r.deleted), nullable(r.prominence));
      list(r.investments).forEach((v, i) => to("s_investments").push(line, i, v.project_id, nullable(v.round_id), v.invested_at, bit(v.verified)));
      list(r.roles).forEach((v, i) => to("s_roles").push(line, i, nullable(v.project_id), nullable(v.fund_id), bit(v.is_current), nullable(v.started_at)));
    },
    indexSql: [
      "CREATE INDEX s_people_id ON s_people (id);",
      "CREATE INDEX s_people_slug ON s_people (slug);",
      "CREATE INDEX s_investments_parent ON s_investments (person_line);",
      "CREATE INDEX s_roles_parent ON s_roles (person_line);",
    ].join("\n"),
  },
  reference: { type: "person", table: "s_people", id: "id", kept: "k_people", claimedBy: "id" },
  checks: (references) => [
    duplicate("s_people", "people.jsonl", "id", "id", "id"),
    duplicate("s_people", "people.jsonl", "slug", "slug", "slug"),
    `${intoProblems} SELECT 'people.jsonl', i.person_line, printf('investments[%d].project_id', i.idx), printf('unknown project %s', json_quote(i.project_id))
   FROM s_investments i WHERE NOT ${references.exists("project", "i.project_id")};`,
    `${intoProblems} SELECT 'people.jsonl', i.person_line, printf('investments[%d].round_id', i.idx),
     printf('round %s is not a funding round of project %s', json_quote(i.round_id), json_quote(i.project_id))
   FROM s_investments i
   WHERE i.round_id IS NOT NULL AND EXISTS (SELECT 1 FROM s_projects p WHERE p.id = i.project_id)
     AND NOT EXISTS (SELECT 1 FROM s_projects p JOIN s_rounds r ON r.project_line = p.line WHERE p.id = i.project_id AND r.id = i.round_id);`,
    `${intoProblems} SELECT 'people.jsonl', r.person_line, printf('roles[%d].project_id', r.idx), printf('unknown project %s', json_quote(r.project_id))
   FROM s_roles r WHERE r.project_id IS NOT NULL AND NOT ${references.exists("project", "r.project_id")};`,
    `${intoProblems} SELECT 'people.jsonl', r.person_line, printf('roles[%d].fund_id', r.idx), printf('unknown fund %s', json_quote(r.fund_id))
   FROM s_roles r WHERE r.fund_id IS NOT NULL AND NOT ${references.exists("fund", "r.fund_id")};`,
  ],
  eligibility: () => `
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
  FROM s_roles r JOIN k_people pe ON pe.line = r.person_line JOIN k_projects pr ON pr.id = r.project_id;`,
  exclusions: () => ({
    ...visibilityCounts("s_people"),
    investment_not_verified: "(SELECT count(*) FROM s_investments i JOIN k_people p ON p.line = i.person_line WHERE i.verified = 0)",
    reference_ineligible: `((SELECT count(*) FROM s_investments i JOIN k_people p ON p.line = i.person_line
          WHERE i.verified = 1 AND i.project_id NOT IN (SELECT id FROM k_projects))
        + (SELECT count(*) FROM s_roles r JOIN k_people p ON p.line = r.person_line WHERE r.project_id NOT IN (SELECT id FROM k_projects))
        + (SELECT count(*) FROM s_roles r JOIN k_people p ON p.line = r.person_line WHERE r.fund_id NOT IN (SELECT id FROM k_funds)))`,
    over_list_cap: `(${overCap("k_investments", "person_id")} + ${overCap("k_roles", "person_id")})`,
  }),
  output: `
INSERT INTO people (id, slug, full_name, investment_count, role_count, is_search_candidate)
  SELECT p.id, p.slug, p.full_name, coalesce(i.n, 0), coalesce(r.n, 0),
    (coalesce(i.n, 0) + coalesce(r.n, 0)) > 0 OR EXISTS (SELECT 1 FROM k_fund_roles f WHERE f.person_id = p.id)
      -- An X account's link names the person by id only: search must find them (decision 30).
      OR p.id IN (SELECT linked_id FROM k_x WHERE linked_type = 'person')
  FROM k_people p
    LEFT JOIN ${countBy("k_investments", "person_id")} i ON i.owner = p.id
    LEFT JOIN ${countBy("k_roles", "person_id")} r ON r.owner = p.id
  ORDER BY p.id;
INSERT INTO person_investments SELECT person_id, position, project_id
  FROM k_investments WHERE position <= ${cap} ORDER BY person_id, position;
INSERT INTO person_roles SELECT person_id, position, project_id, is_current
  FROM k_roles WHERE position <= ${cap} ORDER BY person_id, position;
`,
  search: { layout: "person", curated: { table: "k_people", id: "id" } },
  diff: "people",
  curated: { people: "(SELECT count(*) FROM s_people)" },
});
