// Tokens: identity, the market observation that places a token in the top-200 universe, and
// tokenomics whose every field carries its own verification time and confidence; named by news
// entities and trending entries.
import { prominenceScores } from "../../policy.ts";
import { defineFamily } from "../define.ts";
import { tokenSource } from "./source.ts";
import { tokenChecks, tokenEligibility, tokenExclusions, tokenFunctions, tokenObservations, tokenOutput } from "./sql.ts";
import { tokenRankings } from "./rankings.ts";
import { tokenStaging } from "./staging.ts";

export const tokens = defineFamily({
  family: "tokens",
  file: "tokens.jsonl",
  schema: tokenSource,
  staging: tokenStaging,
  reference: { type: "token", table: "s_tokens", id: "id", kept: "k_tokens", claimedBy: "id" },
  checks: tokenChecks,
  observations: tokenObservations,
  eligibility: tokenEligibility,
  exclusions: () => tokenExclusions,
  output: tokenOutput,
  functions: tokenFunctions,
  search: {
    layout: "token",
    curated: { table: "k_tokens", id: "id" },
    signals: [`SELECT token_id, ${prominenceScores.market("position")} FROM market_assets`],
  },
  diff: "tokens",
  curated: {
    tokens: "(SELECT count(*) FROM s_tokens)",
    tokenomics: "(SELECT count(DISTINCT token_line) FROM s_tokenomics_fields)",
    market: "(SELECT count(*) FROM s_tokens WHERE observed_at IS NOT NULL)",
    top_movers: "(SELECT count(*) FROM s_tokens WHERE observed_at IS NOT NULL)",
    // The market snapshot's row needs both benchmarks (docs/source-format.md, "Snapshots").
    market_snapshot: `(SELECT CASE WHEN sum(benchmark = 'btc') > 0 AND sum(benchmark = 'eth') > 0 THEN count(*) ELSE 0 END
      FROM s_tokens WHERE observed_at IS NOT NULL AND benchmark IS NOT NULL)`,
  },
  rankings: tokenRankings,
  stale: {
    market: {
      staleRule: "market_observation_stale",
      locate: "SELECT 'tokens.jsonl', line, 'market.observed_at', observed_at FROM k_market_checked ORDER BY observed_at DESC, line LIMIT 1",
    },
  },
});
