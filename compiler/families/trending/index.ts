// Trending signals: one entity's score on one UTC day or in the live window. They are not written
// as records: the trending entities snapshot ranks them (snapshots.ts).
import { defineFamily, type Json } from "../define.ts";
import { intoProblems, quote } from "../_sql.ts";
import { cutoff, eligibilityThresholds } from "../../policy.ts";
import { trendingSql } from "./rankings.ts";
import { trendingSignalSource } from "./source.ts";

export const trending = defineFamily({
  family: "trending",
  file: "trending.jsonl",
  schema: trendingSignalSource,
  staging: {
    tables: {
      // `handle` as written (an X account entry), for problems only.
      s_trending: { line: "INTEGER", entity_type: "TEXT", entity_id: "TEXT", handle: "TEXT", day: "TEXT", observed_at: "DATETIME", score: "NUMERIC" },
    },
    rows(r, line, to, xid) {
      const entity = r.entity as Json;
      to("s_trending").push(line, entity.type, xid ?? entity.id, entity.handle ?? null, r.day, r.observed_at, r.score);
    },
    indexSql: "CREATE INDEX s_trending_day ON s_trending (day, entity_type, entity_id);",
  },
  xHandle: {
    of: (r) => (r.entity as { handle?: string }).handle,
    missingSecret: { path: "entity.handle", message: "an X secret is required to resolve X handles", once: false },
  },
  checks: (references) => [
    `${intoProblems} SELECT 'trending.jsonl', s.line, CASE s.entity_type WHEN 'x_account' THEN 'entity.handle' ELSE 'entity.id' END,
     CASE s.entity_type WHEN 'x_account' THEN printf('unknown X account %s: no record of x_accounts.jsonl has this handle (case and @ ignored)', json_quote(s.handle))
       ELSE printf('unknown %s %s', s.entity_type, json_quote(s.entity_id)) END
   FROM s_trending s WHERE s.entity_id IS NULL OR NOT ${references.known("s.entity_type", "s.entity_id")};`,
  ],
  observations: [{ table: "s_trending", column: "observed_at", line: "line", path: "'observed_at'" }],
  exclusions: ({ compiledAt, eligibleEntity }) => {
    const liveCutoff = quote(cutoff(compiledAt, eligibilityThresholds.liveTrendingSignalMaxAge));
    return {
      trending_signal_stale: `(SELECT count(*) FROM s_trending WHERE day = 'live' AND observed_at < ${liveCutoff})`,
      reference_ineligible: `(SELECT count(*) FROM s_trending s WHERE NOT (day = 'live' AND observed_at < ${liveCutoff}) AND NOT ${eligibleEntity("s.entity_type", "s.entity_id")})`,
    };
  },
  curated: {
    trending: "(SELECT count(*) FROM s_trending)",
    trending_live: "(SELECT count(*) FROM s_trending WHERE day = 'live')",
    trending_days: "(SELECT count(*) FROM s_trending WHERE day <> 'live')",
  },
  // The entities are ranked on a side thread; the live snapshot's as_of is read from what it copied in.
  sideRankings: trendingSql,
  rankings: {
    trending_live: { sql: "", asOf: "(SELECT as_of FROM trending_days WHERE day = 'live')" },
  },
  stale: {
    trending_live: {
      staleRule: "trending_signal_stale",
      locate: "SELECT 'trending.jsonl', line, 'observed_at', observed_at FROM s_trending WHERE day = 'live' ORDER BY observed_at DESC, line LIMIT 1",
    },
  },
});
