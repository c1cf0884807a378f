// News: curated stories and the entities they name (projects, tokens, people, funds, stocks,
// narratives); the stories naming a stock are that stock's (k_stock_news, written by stocks/index.ts).
import { defineFamily } from "../define.ts";
import { duplicate, intoProblems, overCap, visibilityCounts } from "../_sql.ts";
import { bit, list, nullable } from "../_values.ts";
import { newsSource } from "./source.ts";

export const news = defineFamily({
  family: "news",
  file: "news.jsonl",
  schema: newsSource,
  staging: {
    tables: {
      s_news: {
        line: "INTEGER", id: "TEXT", title: "TEXT", summary: "TEXT", published_at: "DATETIME", sentiment: "TEXT",
        language: "TEXT", curated: "INTEGER", hidden: "INTEGER", deleted: "INTEGER", prominence: "INTEGER",
      },
      s_news_entities: { news_line: "INTEGER", idx: "INTEGER", type: "TEXT", id: "TEXT" },
    },
    rows(r, line, to) {
      to("s_news").push(line, r.id, r.title, r.summary, r.published_at, r.sentiment, r.language, bit(r.curated), bit(r.hidden), bit(r.deleted), nullable(r.prominence));
      list(r.entities).forEach((e, i) => to("s_news_entities").push(line, i, e.type, e.id));
    },
    indexSql: [
      "CREATE INDEX s_news_id ON s_news (id);",
      "CREATE INDEX s_news_entities_parent ON s_news_entities (news_line);",
    ].join("\n"),
  },
  checks: (references) => [
    duplicate("s_news", "news.jsonl", "id", "id", "id"),
    `${intoProblems} SELECT 'news.jsonl', e.news_line, printf('entities[%d].id', e.idx), printf('unknown %s %s', e.type, json_quote(e.id))
   FROM s_news_entities e WHERE NOT ${references.known("e.type", "e.id")};`,
  ],
  eligibility: () => `
CREATE TABLE kept.k_news AS SELECT * FROM s_news WHERE hidden = 0 AND deleted = 0 AND curated = 1;
CREATE TABLE kept.k_stock_news AS SELECT stock_id, news_id, row_number() OVER (PARTITION BY stock_id ORDER BY published_at DESC, news_id) AS position
  FROM (SELECT DISTINCT s.id AS stock_id, n.id AS news_id, n.published_at
    FROM s_news_entities e JOIN k_news n ON n.line = e.news_line JOIN k_stocks s ON s.id = e.id WHERE e.type = 'stock');`,
  exclusions: ({ eligibleEntity }) => ({
    ...visibilityCounts("s_news"),
    news_not_curated: "(SELECT count(*) FROM s_news WHERE hidden = 0 AND deleted = 0 AND curated = 0)",
    reference_ineligible: `(SELECT count(*) FROM s_news_entities e JOIN k_news n ON n.line = e.news_line WHERE NOT ${eligibleEntity("e.type", "e.id")})`,
    over_list_cap: overCap("k_stock_news", "stock_id"),
  }),
  // An entity is written with the slug and name of the kept record it names, or dropped.
  output: `
INSERT INTO news SELECT id, title, summary, published_at, sentiment, language FROM k_news ORDER BY id;
INSERT INTO news_entities
  SELECT news_id, row_number() OVER (PARTITION BY news_id ORDER BY idx), type, id, slug, name FROM (
    SELECT n.id AS news_id, e.idx, e.type, e.id,
      coalesce(p.slug, t.slug, pe.slug, f.slug, s.slug, nr.slug) AS slug, coalesce(p.name, t.name, pe.full_name, f.name, s.name, nr.name) AS name
    FROM k_news n JOIN s_news_entities e ON e.news_line = n.line
      LEFT JOIN k_projects p ON e.type = 'project' AND p.id = e.id
      LEFT JOIN k_tokens t ON e.type = 'token' AND t.id = e.id
      LEFT JOIN k_people pe ON e.type = 'person' AND pe.id = e.id
      LEFT JOIN k_funds f ON e.type = 'fund' AND f.id = e.id
      LEFT JOIN k_stocks s ON e.type = 'stock' AND s.id = e.id
      LEFT JOIN k_narratives nr ON e.type = 'narrative' AND nr.id = e.id)
  WHERE slug IS NOT NULL
  ORDER BY news_id, idx;
`,
  search: { layout: "news", curated: { table: "k_news", id: "id" } },
  diff: "news",
  curated: { news: "(SELECT count(*) FROM s_news)" },
});
