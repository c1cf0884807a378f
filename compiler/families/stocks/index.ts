// Stocks: crypto-related listed companies, ranked by IPO date in the stock rankings; named by news
// entities (a stock's stories: k_stock_news, news/index.ts) and trending entries.
import { eligibilityThresholds, snapshotCaps } from "../../policy.ts";
import { defineFamily } from "../define.ts";
import { countBy, duplicate, visibilityCounts } from "../_sql.ts";
import { bit, nullable } from "../_values.ts";
import { stockSource } from "./source.ts";

export const stocks = defineFamily({
  family: "stocks",
  file: "stocks.jsonl",
  schema: stockSource,
  staging: {
    tables: {
      s_stocks: {
        line: "INTEGER", id: "TEXT", slug: "TEXT", name: "TEXT", ticker: "TEXT", exchange: "TEXT", region: "TEXT",
        crypto_angle: "TEXT", ipo_date: "TEXT", is_pre_ipo: "INTEGER", hidden: "INTEGER", deleted: "INTEGER", prominence: "INTEGER",
      },
    },
    rows(r, line, to) {
      to("s_stocks").push(line, r.id, r.slug, r.name, r.ticker, r.exchange, r.region, r.crypto_angle, r.ipo_date, bit(r.is_pre_ipo),
        bit(r.hidden), bit(r.deleted), nullable(r.prominence));
    },
    indexSql: [
      "CREATE INDEX s_stocks_id ON s_stocks (id);",
      "CREATE INDEX s_stocks_slug ON s_stocks (slug);",
    ].join("\n"),
  },
  reference: { type: "stock", table: "s_stocks", id: "id", kept: "k_stocks", claimedBy: "id" },
  checks: () => [
    duplicate("s_stocks", "stocks.jsonl", "id", "id", "id"),
    duplicate("s_stocks", "stocks.jsonl", "slug", "slug", "slug"),
  ],
  eligibility: () => `
CREATE TABLE kept.k_stocks AS SELECT * FROM s_stocks WHERE hidden = 0 AND deleted = 0;
CREATE INDEX kept.k_stocks_id ON k_stocks (id);`,
  exclusions: () => visibilityCounts("s_stocks"),
  output: `
INSERT INTO stocks SELECT s.id, s.slug, s.name, s.ticker, s.exchange, s.region, s.crypto_angle, s.ipo_date, s.is_pre_ipo, coalesce(n.n, 0)
  FROM k_stocks s LEFT JOIN ${countBy("k_stock_news", "stock_id")} n ON n.owner = s.id
  ORDER BY s.id;
INSERT INTO stock_news SELECT stock_id, position, news_id
  FROM k_stock_news WHERE position <= ${eligibilityThresholds.listCap} ORDER BY stock_id, position;
`,
  search: { layout: "stock", curated: { table: "k_stocks", id: "id" } },
  diff: "stocks",
  curated: { stocks: "(SELECT count(*) FROM s_stocks)", stock_rankings: "(SELECT count(*) FROM s_stocks)" },
  rankings: {
    stock_rankings: {
      sql: `
INSERT INTO stock_rankings (position, stock_id)
  SELECT row_number() OVER (ORDER BY ipo_date DESC, id), id FROM k_stocks ORDER BY ipo_date DESC, id LIMIT ${snapshotCaps.stockRankings};`,
      asOf: null,
    },
  },
});
