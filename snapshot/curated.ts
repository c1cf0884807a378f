// The manifest's `curated` entry (decision 28): how many valid source records carry each family
// and each kind of data the operations read, counted before eligibility (a hidden or stale record
// was curated). 0 means never curated: the operations fed only by it are not offered
// (server/policy.ts, operationSources). Each compiler family declares its names
// (compiler/families/define.ts, `curated`); these lists say which kind each name is.

/** Names that count a family's records. */
export const CURATED_FAMILIES = ["projects", "tokens", "people", "funds", "stocks", "narratives", "news", "events", "x_accounts", "trending"] as const;

/** Names that count the records feeding a precomputed snapshot. */
export const CURATED_PRECOMPUTED = [
  "trending_projects", "fund_rankings", "stock_rankings", "market", "market_snapshot", "top_movers", "trending_live", "trending_days",
  "narrative_rankings",
] as const;

/** Names that count the records carrying the data of a detail operation (a project's TVL, a token's tokenomics). */
export const CURATED_RECORD_DATA = ["project_tvl", "tokenomics"] as const;

export const CURATED_NAMES: readonly string[] = [...CURATED_FAMILIES, ...CURATED_PRECOMPUTED, ...CURATED_RECORD_DATA];

/** The families and precomputed snapshots a snapshot holds: those at least one source record feeds, in the lists' order. */
export function holdings(curated: Readonly<Record<string, number>>): { families: string[]; precomputed: string[] } {
  const held = (names: readonly string[]) => names.filter((name) => (curated[name] ?? 0) > 0);
  return { families: held(CURATED_FAMILIES), precomputed: held(CURATED_PRECOMPUTED) };
}
