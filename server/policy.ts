// The service's cross-cutting policy, one table each: what an operation needs and costs and
// what a tier may spend per window. How old each snapshot may be when it is served is part of the
// snapshot file's contract (snapshot/freshness.ts). docs/api.md publishes these same numbers.

export const tiers = ["free", "pro", "pro_plus", "team", "internal"] as const;
export type Tier = (typeof tiers)[number];

export const scopes = [
  "search", "discovery", "projects", "funds", "people", "tokens",
  "markets", "stocks", "news", "narratives", "events", "x_accounts",
] as const;
export type Scope = (typeof scopes)[number];

export const operationIds = [
  "search_entities", "search_people", "get_person_investments", "get_person_roles",
  "get_project", "get_project_features", "get_project_events", "get_project_funding",
  "get_project_market", "list_trending_projects", "get_tokenomics", "list_market_top_movers",
  "get_market_snapshot", "list_stock_rankings", "list_fund_rankings", "list_trending_entities",
  "get_news", "get_x_account", "get_event", "get_token", "get_token_unlocks", "list_narratives",
  "get_narrative", "get_fund", "get_stock_news", "get_key",
] as const;
export type OperationId = (typeof operationIds)[number];

/**
 * Scope (product decisions 8 and 31) and credit cost (decision 10) of every operation. `get_key` needs no
 * scope and costs nothing (decision 26), but counts in the rate window like every request.
 */
export const operationPolicy: Record<OperationId, { scope: Scope | null; cost: number }> = {
  search_entities: { scope: "search", cost: 2 },
  search_people: { scope: "people", cost: 2 },
  get_person_investments: { scope: "people", cost: 1 },
  get_person_roles: { scope: "people", cost: 1 },
  get_project: { scope: "projects", cost: 1 },
  get_project_features: { scope: "projects", cost: 1 },
  get_project_events: { scope: "projects", cost: 1 },
  get_project_funding: { scope: "projects", cost: 1 },
  get_project_market: { scope: "projects", cost: 1 },
  list_trending_projects: { scope: "projects", cost: 1 },
  get_tokenomics: { scope: "tokens", cost: 1 },
  list_market_top_movers: { scope: "markets", cost: 1 },
  get_market_snapshot: { scope: "markets", cost: 1 },
  list_stock_rankings: { scope: "stocks", cost: 1 },
  list_fund_rankings: { scope: "funds", cost: 1 },
  list_trending_entities: { scope: "discovery", cost: 1 },
  get_news: { scope: "news", cost: 1 },
  get_x_account: { scope: "x_accounts", cost: 1 },
  get_event: { scope: "events", cost: 1 },
  get_token: { scope: "tokens", cost: 1 },
  get_token_unlocks: { scope: "tokens", cost: 1 },
  list_narratives: { scope: "narratives", cost: 1 },
  get_narrative: { scope: "narratives", cost: 1 },
  get_fund: { scope: "funds", cost: 1 },
  get_stock_news: { scope: "stocks", cost: 1 },
  get_key: { scope: null, cost: 0 },
};

/**
 * The curated data each operation reads, by its name in the snapshot manifest's `curated` (each
 * compiler family's `curated`, compiler/families/define.ts). Decision 28: an operation none of
 * whose data was curated (every count 0: its family file is empty, or no record carries the data)
 * is not offered, and answers exactly as an unknown route; data that was curated and has gone
 * stale keeps decision 14. `get_key` reads no snapshot and is always offered.
 */
export const operationSources: Record<OperationId, readonly string[]> = {
  search_entities: ["projects", "tokens", "funds", "people", "stocks", "x_accounts", "news", "events", "narratives"],
  search_people: ["people"],
  get_person_investments: ["people"],
  get_person_roles: ["people"],
  get_project: ["projects"],
  get_project_features: ["projects"],
  get_project_events: ["projects"],
  get_project_funding: ["projects"],
  get_project_market: ["project_tvl"],
  list_trending_projects: ["trending_projects"],
  get_tokenomics: ["tokenomics"],
  list_market_top_movers: ["top_movers"],
  get_market_snapshot: ["market_snapshot"],
  list_stock_rankings: ["stock_rankings"],
  list_fund_rankings: ["fund_rankings"],
  list_trending_entities: ["trending_live", "trending_days"],
  get_news: ["news"],
  get_x_account: ["x_accounts"],
  get_event: ["events"],
  get_token: ["tokens"],
  // Unlocks are computed from vesting schedules, which are tokenomics fields.
  get_token_unlocks: ["tokenomics"],
  list_narratives: ["narrative_rankings"],
  get_narrative: ["narratives"],
  get_fund: ["funds"],
  get_stock_news: ["stocks"],
  get_key: [],
};

/** Whether a snapshot whose manifest's `curated` is `curated` offers `operation` (decision 28). */
export function isOffered(operation: OperationId, curated: Readonly<Record<string, number>>): boolean {
  const sources = operationSources[operation];
  return sources.length === 0 || sources.some((name) => (curated[name] ?? 0) > 0);
}

/** Fixed windows aligned to the epoch, so every process computes the same window and reset_at. */
export const RATE_WINDOW_MS = 60_000;

/** Requests per window for each tier (decision 10); `internal` is the highest. */
export const tierRateLimits: Record<Tier, number> = {
  free: 60,
  pro: 600,
  pro_plus: 1_800,
  team: 6_000,
  internal: 1_000_000,
};

/** Dated trending requests: the previous 30 UTC days (today is served by the live snapshot). */
export const TRENDING_DATED_WINDOW_DAYS = 30;
