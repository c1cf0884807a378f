// The compiler's eligibility policy, in one table: which rule excludes what, and the
// thresholds it uses. Freshness thresholds that the server also enforces are imported from
// snapshot/freshness.ts so that both halves use the same numbers. docs/source-format.md publishes
// this table.
import { freshnessBounds } from "../snapshot/freshness.ts";

const HOUR = 3_600_000;

/** Thresholds, in ms relative to compiledAt unless stated. */
export const eligibilityThresholds = {
  tokenomicsFieldMaxAge: freshnessBounds.tokenomics,
  tokenomicsMinConfidence: 0.8,
  marketObservationMaxAge: freshnessBounds.market,
  marketUniverseMaxRank: 200,
  tvlMaxAge: freshnessBounds.project_tvl,
  trendObservationMaxAge: freshnessBounds.trending_projects,
  liveTrendingSignalMaxAge: freshnessBounds.trending_live,
  narrativeSignalMaxAge: freshnessBounds.narrative_rankings,
  listCap: 20,
} as const;

/**
 * Search prominence (decision 29): each compiled signal as a score from 1 to 1000, higher first; a
 * record's prominence is the highest of its scores and its curated `prominence`, and a record
 * with none ranks after every record with one. SQL expressions over the column named.
 */
export const prominenceScores = {
  /** A token's position p (1-200) in the top-200 market universe: 1000 for the first, 801 for the 200th. */
  market: (position: string) => `1001 - ${position}`,
  /** A project's TVL in US dollars: 100 per power of ten (US$1 billion: 900, US$1 million: 600), 1-1000. */
  tvl: (usd: string) => `max(1, min(1000, CAST(round(100 * log10(max(${usd}, 1))) AS INTEGER)))`,
  /** n appearances in the trending snapshots (live, each dated day, trending projects, narrative rankings): 100 each, at most 1000. */
  trending: (appearances: string) => `min(1000, 100 * ${appearances})`,
} as const;

/** Snapshot sizes (the API spec's Limits table). */
export const snapshotCaps = {
  trendingProjects: 30,
  fundRankings: 30,
  stockRankings: 30,
  trendingEntities: 20,
  marketUniverse: 200,
  moversPerDirection: 20,
  trendingDatedDays: 30,
  narratives: 30,
} as const;

export const ruleIds = [
  "hidden",
  "deleted",
  "feature_not_reviewed",
  "event_not_verified",
  "round_not_verified",
  "investment_not_verified",
  "event_dates_not_validated",
  "news_not_curated",
  "tokenomics_field_stale",
  "tokenomics_field_low_confidence",
  "market_observation_stale",
  "market_outside_top_200",
  "market_ineligible",
  "tvl_mapping_inconsistent",
  "tvl_stale",
  "trend_observation_stale",
  "trending_signal_stale",
  "narrative_signal_stale",
  "reference_ineligible",
  "over_list_cap",
] as const;
export type RuleId = (typeof ruleIds)[number];

/** A rule of the policy; the families it applies to count it in their `exclusions` (a family folder's index.ts). */
export interface EligibilityRule {
  id: RuleId;
  appliesTo: string;
  excludedWhen: string;
}

/**
 * A record is counted once, under the first rule (in this order) that excludes it. Items nested
 * in an excluded record are not counted again.
 */
export const eligibilityRules: readonly EligibilityRule[] = [
  { id: "hidden", appliesTo: "every top-level record", excludedWhen: "`hidden: true`" },
  { id: "deleted", appliesTo: "every top-level record", excludedWhen: "`deleted: true`" },
  { id: "feature_not_reviewed", appliesTo: "project features", excludedWhen: "`review_state` is not `reviewed`" },
  { id: "event_not_verified", appliesTo: "project events", excludedWhen: "`verified: false`" },
  { id: "round_not_verified", appliesTo: "funding rounds", excludedWhen: "`verified: false`" },
  { id: "investment_not_verified", appliesTo: "investments", excludedWhen: "`verified: false`" },
  { id: "event_dates_not_validated", appliesTo: "in-person events", excludedWhen: "`dates_validated: false`" },
  { id: "news_not_curated", appliesTo: "news", excludedWhen: "`curated: false`" },
  { id: "tokenomics_field_stale", appliesTo: "each tokenomics field", excludedWhen: "`verified_at` older than 180 days" },
  { id: "tokenomics_field_low_confidence", appliesTo: "each tokenomics field", excludedWhen: "`confidence` < 0.8" },
  { id: "market_observation_stale", appliesTo: "token market observations", excludedWhen: "`observed_at` older than 6 hours" },
  { id: "market_outside_top_200", appliesTo: "token market observations", excludedWhen: "`rank` > 200 (or beyond the 200 largest eligible market caps)" },
  { id: "market_ineligible", appliesTo: "token market observations", excludedWhen: "`market_eligible: false`" },
  { id: "tvl_mapping_inconsistent", appliesTo: "project TVL", excludedWhen: "mapping `state` is not `confirmed`, or the latest observation's `series_id` differs from the mapping's" },
  { id: "tvl_stale", appliesTo: "project TVL", excludedWhen: "latest observation's date (at 00:00Z) older than 2 days" },
  { id: "trend_observation_stale", appliesTo: "project trend observations", excludedWhen: "latest observation older than 24 hours" },
  { id: "trending_signal_stale", appliesTo: "live trending signals", excludedWhen: "`observed_at` older than 2 hours" },
  { id: "narrative_signal_stale", appliesTo: "narrative trend signals", excludedWhen: "`signal.observed_at` older than 24 hours" },
  {
    id: "reference_ineligible",
    appliesTo: "links to an excluded record (news entities, investments, roles, trending entries, token→project, narrative projects)",
    excludedWhen: "the target was excluded; the link is dropped",
  },
  {
    id: "over_list_cap",
    appliesTo: "lists capped at 20 (features, events, rounds, investments, roles, token contracts, narrative projects and timelines, fund portfolios and partners, stock stories)",
    excludedWhen: "beyond the 20 kept",
  },
];

/** ISO string of compiledAt minus a duration: records observed strictly before it are stale. */
export function cutoff(compiledAt: Date, maxAgeMs: number): string {
  return new Date(compiledAt.getTime() - maxAgeMs).toISOString();
}

export { HOUR };
