// Projects as staging rows: one per project, and one per feature, event, funding round, investor,
// TVL mapping and trend observation.
import type { Json, Staging } from "../define.ts";
import { bit, list, nullable } from "../_values.ts";

type Table = "s_projects" | "s_features" | "s_pevents" | "s_rounds" | "s_round_investors" | "s_tvl" | "s_trend_observations";

export const projectStaging: Staging<Table> = {
  tables: {
    s_projects: { line: "INTEGER", id: "TEXT", slug: "TEXT", name: "TEXT", hidden: "INTEGER", deleted: "INTEGER", prominence: "INTEGER" },
    s_features: {
      project_line: "INTEGER", idx: "INTEGER", feature_id: "TEXT", feature_name: "TEXT", display_name: "TEXT",
      category: "TEXT", status: "TEXT", primary_url: "TEXT", docs_url: "TEXT", app_url: "TEXT", chain_ids: "TEXT",
      last_verified_at: "DATETIME", review_state: "TEXT",
    },
    s_pevents: { project_line: "INTEGER", idx: "INTEGER", id: "TEXT", type: "TEXT", occurred_at: "DATETIME", verified: "INTEGER" },
    s_rounds: {
      project_line: "INTEGER", idx: "INTEGER", id: "TEXT", round_type: "TEXT", amount_usd: "NUMERIC",
      announced_at: "DATETIME", verified: "INTEGER",
    },
    s_round_investors: { project_line: "INTEGER", round_idx: "INTEGER", idx: "INTEGER", type: "TEXT", id: "TEXT" },
    s_tvl: {
      project_line: "INTEGER", state: "TEXT", series_id: "TEXT", obs_date: "TEXT", obs_tvl: "NUMERIC", obs_series: "TEXT",
    },
    s_trend_observations: { project_line: "INTEGER", idx: "INTEGER", observed_at: "DATETIME", hot_tier: "TEXT", score: "NUMERIC" },
  },
  rows(r, line, to) {
    to("s_projects").push(line, r.id, r.slug, r.name, bit(r.hidden), bit(r.deleted), nullable(r.prominence));
    list(r.features).forEach((f, i) =>
      to("s_features").push(line, i, f.feature_id, f.feature_name, f.display_name, f.category, f.status,
        nullable(f.primary_url), nullable(f.docs_url), nullable(f.app_url), JSON.stringify(f.chain_ids ?? []),
        f.last_verified_at, f.review_state));
    list(r.events).forEach((e, i) => to("s_pevents").push(line, i, e.id, e.type, e.occurred_at, bit(e.verified)));
    list(r.funding).forEach((f, i) => {
      to("s_rounds").push(line, i, f.id, f.round_type, f.amount_usd, f.announced_at, bit(f.verified));
      list(f.investors).forEach((v, j) => to("s_round_investors").push(line, i, j, v.type, v.id));
    });
    const tvl = r.tvl as { mapping: Json; observations: Json[] } | null;
    if (tvl !== null) {
      // The latest observation by date; of equal dates, the last listed.
      let latest: Json | undefined;
      for (const o of tvl.observations) if (latest === undefined || (o.date as string) >= (latest.date as string)) latest = o;
      to("s_tvl").push(line, tvl.mapping.state, tvl.mapping.series_id, nullable(latest?.date), nullable(latest?.tvl_usd), nullable(latest?.series_id));
    }
    list(r.trend).forEach((t, i) => to("s_trend_observations").push(line, i, t.observed_at, t.hot_tier, t.score));
  },
  // s_trend: each project's latest trend observation.
  indexSql: [
    `CREATE TABLE s_trend AS
      SELECT project_line, observed_at, hot_tier, score FROM (
        SELECT project_line, observed_at, hot_tier, score,
          row_number() OVER (PARTITION BY project_line ORDER BY observed_at DESC, score DESC, idx) AS rn
        FROM s_trend_observations) WHERE rn = 1;`,
    "CREATE INDEX s_projects_id ON s_projects (id);",
    "CREATE INDEX s_projects_slug ON s_projects (slug);",
    "CREATE INDEX s_projects_line ON s_projects (line);",
    "CREATE INDEX s_features_parent ON s_features (project_line);",
    "CREATE INDEX s_pevents_parent ON s_pevents (project_line);",
    "CREATE INDEX s_rounds_parent ON s_rounds (project_line, id);",
    "CREATE INDEX s_tvl_parent ON s_tvl (project_line);",
    "CREATE INDEX s_trend_parent ON s_trend (project_line);",
  ].join("\n"),
};
