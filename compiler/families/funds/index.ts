// Funds: ranked by score in the fund rankings; named by news entities and funding-round investors.
import { snapshotCaps } from "../../policy.ts";
import { defineFamily } from "../define.ts";
import { duplicate, visibilityCounts } from "../_sql.ts";
import { bit, nullable } from "../_values.ts";
import { fundSource } from "./source.ts";

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
  eligibility: () => `
CREATE TABLE kept.k_funds AS SELECT * FROM s_funds WHERE hidden = 0 AND deleted = 0;
CREATE INDEX kept.k_funds_id ON k_funds (id);`,
  exclusions: () => visibilityCounts("s_funds"),
  output: "INSERT INTO funds SELECT id, slug, name, fund_type FROM k_funds ORDER BY id;",
  search: { layout: "fund", curated: { table: "k_funds", id: "id" } },
  diff: "funds",
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
