// Narratives: curated themes with their member projects and a timeline, ranked by a trend signal in
// the narrative rankings; named by news entities and trending entries.
import { cutoff, eligibilityThresholds, snapshotCaps } from "../../policy.ts";
import { defineFamily } from "../define.ts";
import { countBy, duplicate, intoProblems, overCap, quote, visibilityCounts } from "../_sql.ts";
import { bit, list, nullable } from "../_values.ts";
import type { Json } from "../define.ts";
import { narrativeSource } from "./source.ts";

const cap = eligibilityThresholds.listCap;

export const narratives = defineFamily({
  family: "narratives",
  file: "narratives.jsonl",
  schema: narrativeSource,
  staging: {
    tables: {
      s_narratives: {
        line: "INTEGER", id: "TEXT", slug: "TEXT", name: "TEXT", score: "NUMERIC", observed_at: "DATETIME", hidden: "INTEGER", deleted: "INTEGER",
        prominence: "INTEGER",
      },
      s_narrative_projects: { narrative_line: "INTEGER", idx: "INTEGER", project_id: "TEXT" },
      s_narrative_timeline: { narrative_line: "INTEGER", idx: "INTEGER", date: "TEXT", title: "TEXT" },
    },
    rows(r, line, to) {
      const signal = r.signal as Json | null;
      to("s_narratives").push(line, r.id, r.slug, r.name, signal?.score ?? null, signal?.observed_at ?? null, bit(r.hidden), bit(r.deleted),
        nullable(r.prominence));
      (r.projects as string[]).forEach((id, i) => to("s_narrative_projects").push(line, i, id));
      list(r.timeline).forEach((t, i) => to("s_narrative_timeline").push(line, i, t.date, t.title));
    },
    indexSql: [
      "CREATE INDEX s_narratives_id ON s_narratives (id);",
      "CREATE INDEX s_narratives_slug ON s_narratives (slug);",
      "CREATE INDEX s_narrative_projects_parent ON s_narrative_projects (narrative_line);",
      "CREATE INDEX s_narrative_timeline_parent ON s_narrative_timeline (narrative_line);",
    ].join("\n"),
  },
  reference: { type: "narrative", table: "s_narratives", id: "id", kept: "k_narratives", claimedBy: "id" },
  checks: (references) => [
    duplicate("s_narratives", "narratives.jsonl", "id", "id", "id"),
    duplicate("s_narratives", "narratives.jsonl", "slug", "slug", "slug"),
    `${intoProblems} SELECT 'narratives.jsonl', p.narrative_line, printf('projects[%d]', p.idx), printf('unknown project %s', json_quote(p.project_id))
   FROM s_narrative_projects p WHERE NOT ${references.exists("project", "p.project_id")};`,
    `${intoProblems} SELECT 'narratives.jsonl', narrative_line, printf('projects[%d]', idx),
     printf('duplicate project %s (first at projects[%d])', json_quote(project_id), first)
   FROM (SELECT narrative_line, idx, project_id, min(idx) OVER (PARTITION BY narrative_line, project_id) AS first FROM s_narrative_projects)
   WHERE idx > first;`,
  ],
  observations: [{ table: "s_narratives", column: "observed_at", line: "line", path: "'signal.observed_at'" }],
  // The timeline keeps its 20 latest entries, served oldest first.
  eligibility: (compiledAt) => `
CREATE TABLE kept.k_narratives AS SELECT * FROM s_narratives WHERE hidden = 0 AND deleted = 0;
CREATE INDEX kept.k_narratives_id ON k_narratives (id);
CREATE TABLE kept.k_narrative_projects AS SELECT n.id AS narrative_id, pr.id AS project_id,
    row_number() OVER (PARTITION BY n.id ORDER BY p.idx) AS position
  FROM s_narrative_projects p JOIN k_narratives n ON n.line = p.narrative_line JOIN k_projects pr ON pr.id = p.project_id;
CREATE TABLE kept.k_narrative_timeline AS SELECT n.id AS narrative_id, t.date, t.title, t.idx,
    row_number() OVER (PARTITION BY n.id ORDER BY t.date DESC, t.idx DESC) AS latest
  FROM s_narrative_timeline t JOIN k_narratives n ON n.line = t.narrative_line;
CREATE TABLE kept.k_narrative_signals AS SELECT id, line, score, observed_at,
    CASE WHEN observed_at < ${quote(cutoff(compiledAt, eligibilityThresholds.narrativeSignalMaxAge))} THEN 'narrative_signal_stale' END AS rule
  FROM k_narratives WHERE observed_at IS NOT NULL;`,
  exclusions: () => ({
    ...visibilityCounts("s_narratives"),
    narrative_signal_stale: "(SELECT count(*) FROM k_narrative_signals WHERE rule = 'narrative_signal_stale')",
    reference_ineligible: `(SELECT count(*) FROM s_narrative_projects p JOIN k_narratives n ON n.line = p.narrative_line
        WHERE p.project_id NOT IN (SELECT id FROM k_projects))`,
    over_list_cap: `(${overCap("k_narrative_projects", "narrative_id")} + ${overCap("k_narrative_timeline", "narrative_id")})`,
  }),
  output: `
INSERT INTO narratives (id, slug, name, project_count)
  SELECT n.id, n.slug, n.name, coalesce(c.n, 0)
  FROM k_narratives n LEFT JOIN ${countBy("k_narrative_projects", "narrative_id")} c ON c.owner = n.id ORDER BY n.id;
INSERT INTO narrative_projects SELECT narrative_id, position, project_id
  FROM k_narrative_projects WHERE position <= ${cap} ORDER BY narrative_id, position;
INSERT INTO narrative_timeline
  SELECT narrative_id, row_number() OVER (PARTITION BY narrative_id ORDER BY date, idx), date, title
  FROM k_narrative_timeline WHERE latest <= ${cap} ORDER BY narrative_id, date, idx;
`,
  // Ranked narratives are trending ones: each appearance counts toward prominence (decision 29).
  search: { layout: "narrative", curated: { table: "k_narratives", id: "id" }, appearances: ["SELECT narrative_id FROM narrative_rankings"] },
  diff: "narratives",
  curated: {
    narratives: "(SELECT count(*) FROM s_narratives)",
    narrative_rankings: "(SELECT count(*) FROM s_narratives WHERE observed_at IS NOT NULL)",
  },
  rankings: {
    narrative_rankings: {
      sql: `
INSERT INTO narrative_rankings (position, narrative_id)
  SELECT row_number() OVER (ORDER BY score DESC, id), id FROM k_narrative_signals WHERE rule IS NULL
  ORDER BY score DESC, id LIMIT ${snapshotCaps.narratives};`,
      asOf: "(SELECT min(s.observed_at) FROM narrative_rankings r JOIN k_narrative_signals s ON s.id = r.narrative_id)",
    },
  },
  stale: {
    narrative_rankings: {
      staleRule: "narrative_signal_stale",
      locate: "SELECT 'narratives.jsonl', line, 'signal.observed_at', observed_at FROM k_narrative_signals ORDER BY observed_at DESC, line LIMIT 1",
    },
  },
});
