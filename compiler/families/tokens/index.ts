// Tokens: identity, the market observation that places a token in the top-200 universe, and
// tokenomics whose every field carries its own verification time and confidence; named by news
// entities and trending entries.
import { prominenceScores } from "../../policy.ts";
import { defineFamily } from "../define.ts";
import { tokenSource } from "./source.ts";
import { tokenChecks, tokenEligibility, tokenExclusions, tokenObservations, tokenOutput } from "./sql.ts";
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
  search: {
    layout: "token",
    curated: { table: "k_tokens", id: "id" },
    signals: [`SELECT token_id, ${prominenceScores.market("position")} FROM market_assets`],
  },
  diff: "tokens",
  rankings: tokenRankings,
  stale: {
    market: {
      staleRule: "market_observation_stale",
      locate: "SELECT 'tokens.jsonl', line, 'market.observed_at', observed_at FROM k_market_checked ORDER BY observed_at DESC, line LIMIT 1",
    },
  },
});
