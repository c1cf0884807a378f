// Tokens in SQL: the checks of their ids and references, the market universe and the tokenomics
// fields kept, the exclusion counts, and the snapshot rows.
import type { ReferenceSql } from "../define.ts";
import { duplicate, intoProblems, overCap, quote, visibilityCounts } from "../_sql.ts";
import { cutoff, eligibilityThresholds as t } from "../../policy.ts";
import { unlockPlan, type UnlockCadence, type UnlockPlan } from "../../../snapshot/unlocks.ts";

export const tokenChecks = (references: ReferenceSql): string[] => [
  duplicate("s_tokens", "tokens.jsonl", "id", "id", "id"),
  duplicate("s_tokens", "tokens.jsonl", "benchmark", "benchmark", "benchmark"),
  `${intoProblems} SELECT 'tokens.jsonl', k.line, 'project_id', printf('unknown project %s', json_quote(k.project_id))
   FROM s_tokens k WHERE k.project_id IS NOT NULL AND NOT ${references.exists("project", "k.project_id")};`,
  // One contract per chain within a token.
  `${intoProblems} SELECT 'tokens.jsonl', token_line, printf('contracts[%d].chain_id', idx),
     printf('duplicate chain_id %s (first at contracts[%d]): a token has one contract per chain', json_quote(chain_id), first)
   FROM (SELECT token_line, idx, chain_id, min(idx) OVER (PARTITION BY token_line, chain_id) AS first FROM s_token_contracts)
   WHERE idx > first;`,
  // One token per contract: the same address on the same chain (EVM addresses in any case) in two tokens.
  `${intoProblems} SELECT 'tokens.jsonl', c.token_line, printf('contracts[%d].address', c.idx),
     printf('duplicate contract %s on %s (first on line %d, at contracts[%d]): a contract belongs to one token', json_quote(c.address), c.chain_id, f.token_line, f.idx)
   FROM (SELECT token_line, idx, chain_id, address, address_key,
       min(token_line) OVER (PARTITION BY chain_id, address_key) AS first_line FROM s_token_contracts) c
     JOIN s_token_contracts f ON f.token_line = c.first_line AND f.chain_id = c.chain_id AND f.address_key = c.address_key
   WHERE c.token_line > c.first_line
     AND f.idx = (SELECT min(idx) FROM s_token_contracts g WHERE g.token_line = c.first_line AND g.chain_id = c.chain_id AND g.address_key = c.address_key);`,
];

export const tokenObservations = [
  { table: "s_tokens", column: "observed_at", line: "line", path: "'market.observed_at'" },
  { table: "s_tokenomics_fields", column: "verified_at", line: "token_line", path: "printf('tokenomics.%s.verified_at', field)" },
];

export function tokenEligibility(compiledAt: Date): string {
  const tokenomicsCutoff = quote(cutoff(compiledAt, t.tokenomicsFieldMaxAge));
  const marketCutoff = quote(cutoff(compiledAt, t.marketObservationMaxAge));
  return `
CREATE TABLE kept.k_tokens AS SELECT * FROM s_tokens WHERE hidden = 0 AND deleted = 0;
CREATE INDEX kept.k_tokens_id ON k_tokens (id);
CREATE TABLE kept.k_token_contracts AS SELECT k.id AS token_id, c.chain_id, c.address,
    row_number() OVER (PARTITION BY k.id ORDER BY c.namespace, c.reference_number IS NULL, c.reference_number, c.chain_id) AS position
  FROM s_token_contracts c JOIN k_tokens k ON k.line = c.token_line;
CREATE TABLE kept.k_market_checked AS SELECT *,
    CASE WHEN observed_at < ${marketCutoff} THEN 'market_observation_stale'
      WHEN rank > ${t.marketUniverseMaxRank} THEN 'market_outside_top_200'
      WHEN market_eligible = 0 THEN 'market_ineligible' END AS rule
  FROM k_tokens WHERE observed_at IS NOT NULL;
CREATE TABLE kept.k_market AS SELECT * FROM (
    SELECT *, row_number() OVER (ORDER BY market_cap_usd DESC, id) AS position FROM k_market_checked WHERE rule IS NULL)
  WHERE position <= ${t.marketUniverseMaxRank};
CREATE TABLE kept.k_tokenomics_checked AS SELECT k.id AS token_id, k.line AS token_line, f.field, f.verified_at,
    CASE WHEN f.verified_at < ${tokenomicsCutoff} THEN 'tokenomics_field_stale'
      WHEN f.confidence < ${t.tokenomicsMinConfidence} THEN 'tokenomics_field_low_confidence' END AS rule
  FROM s_tokenomics_fields f JOIN k_tokens k ON k.line = f.token_line;
CREATE TABLE kept.k_tokenomics AS SELECT token_id, token_line, field, verified_at FROM k_tokenomics_checked WHERE rule IS NULL;`;
}

export const tokenExclusions = {
  ...visibilityCounts("s_tokens"),
  tokenomics_field_stale: "(SELECT count(*) FROM k_tokenomics_checked WHERE rule = 'tokenomics_field_stale')",
  tokenomics_field_low_confidence: "(SELECT count(*) FROM k_tokenomics_checked WHERE rule = 'tokenomics_field_low_confidence')",
  market_observation_stale: "(SELECT count(*) FROM k_market_checked WHERE rule = 'market_observation_stale')",
  market_outside_top_200: "(SELECT count(*) FROM k_market_checked WHERE rule = 'market_outside_top_200' OR (rule IS NULL AND id NOT IN (SELECT id FROM k_market)))",
  market_ineligible: "(SELECT count(*) FROM k_market_checked WHERE rule = 'market_ineligible')",
  reference_ineligible: "(SELECT count(*) FROM k_tokens WHERE project_id IS NOT NULL AND project_id NOT IN (SELECT id FROM k_projects))",
  over_list_cap: overCap("k_token_contracts", "token_id"),
};

/** One field of a vesting schedule's unlock plan (snapshot/unlocks.ts), for the SQL function `unlock_plan`. */
const plannedFields = ["start_ms", "end_ms", "tge_amount", "cliff_ms", "cliff_amount", "first_step", "step_count", "step_amount"] as const;
let lastPlan: { key: string; plan: UnlockPlan } | undefined;

/** `unlock_plan(field, start_at, cliff_at, end_at, cadence, percent_unlocked_at_tge, amount_native)`: a row's fields are asked in turn, so the last plan is kept. */
function plannedField(field: string, start: string, cliff: string | null, end: string, cadence: string, tge: number, amount: number): number | null {
  const key = `${start}|${cliff}|${end}|${cadence}|${tge}|${amount}`;
  if (lastPlan?.key !== key) {
    const plan = unlockPlan({
      allocation_bucket: "", start_ms: Date.parse(start), cliff_ms: cliff === null ? null : Date.parse(cliff), end_ms: Date.parse(end),
      cadence: cadence as UnlockCadence, percent_unlocked_at_tge: tge, amount_native: amount,
    });
    lastPlan = { key, plan };
  }
  if (!(plannedFields as readonly string[]).includes(field)) throw new Error(`unlock_plan has no field ${field}`);
  return lastPlan.plan[field as (typeof plannedFields)[number]];
}

export const tokenFunctions = { unlock_plan: plannedField };

const planned = (field: (typeof plannedFields)[number]): string =>
  `unlock_plan('${field}', start_at, cliff_at, end_at, cadence, percent_unlocked_at_tge, amount_native)`;

export const tokenOutput = `
INSERT INTO tokens SELECT id, slug, symbol, name, CASE WHEN project_id IN (SELECT id FROM k_projects) THEN project_id END
  FROM k_tokens ORDER BY id;
INSERT INTO token_contracts SELECT token_id, position, chain_id, address FROM k_token_contracts WHERE position <= ${t.listCap} ORDER BY token_id, position;
INSERT INTO tokenomics (token_id, as_of, model_type)
  SELECT f.token_id, min(f.verified_at), max(CASE WHEN f.field = 'model_type' THEN s.model_type END)
  FROM k_tokenomics f JOIN s_tokenomics_fields s ON s.token_line = f.token_line AND s.field = f.field
  GROUP BY f.token_id ORDER BY f.token_id;
INSERT INTO tokenomics_allocations
  SELECT f.token_id, a.idx + 1, a.bucket, a.percent_supply, a.amount_native
  FROM k_tokenomics f JOIN s_allocations a ON a.token_line = f.token_line
  WHERE f.field = 'allocations' ORDER BY f.token_id, a.idx;
INSERT INTO tokenomics_vesting
  SELECT f.token_id, v.idx + 1, v.allocation_bucket, v.start_at, v.cliff_at, v.end_at, v.cadence, v.percent_unlocked_at_tge, v.amount_native
  FROM k_tokenomics f JOIN s_vesting v ON v.token_line = f.token_line
  WHERE f.field = 'vesting_schedules' ORDER BY f.token_id, v.idx;
INSERT INTO token_unlock_plans
  SELECT token_id, position, allocation_bucket, cadence, ${plannedFields.map(planned).join(", ")}
  FROM tokenomics_vesting ORDER BY token_id, position;
INSERT INTO tokenomics_utilities
  SELECT f.token_id, u.idx + 1, u.utility_type
  FROM k_tokenomics f JOIN s_utilities u ON u.token_line = f.token_line
  WHERE f.field = 'utilities' ORDER BY f.token_id, u.idx;
`;
