// What the diff compares, table by table: the families (a record and its nested lists) and the
// precomputed snapshots (ranked entries). Tables derived from others (search index, X handle
// index, trending_days' and snapshots' rows, which become `as_of` changes) are not listed: a change
// in them always shows as a change of the records they derive from, or in the manifest.

/** A nested list of a record, or a one-row attachment (`key` empty), e.g. a project's TVL. */
export interface ListSpec {
  name: string;
  table: string;
  parent: string;
  /**
   * What identifies an item within its record. Lists whose items have no id the compiler keeps
   * unique are compared position by position (`["position"]`); otherwise `position` is ignored,
   * so an insertion does not report every later item as changed.
   */
  key: string[];
}

export interface FamilySpec {
  name: string;
  table: string;
  lists: ListSpec[];
}

export const familySpecs: readonly FamilySpec[] = [
  {
    name: "projects",
    table: "projects",
    lists: [
      { name: "features", table: "project_features", parent: "project_id", key: ["feature_id"] },
      { name: "events", table: "project_events", parent: "project_id", key: ["id"] },
      { name: "funding_rounds", table: "funding_rounds", parent: "project_id", key: ["position"] },
      { name: "tvl", table: "project_tvl", parent: "project_id", key: [] },
    ],
  },
  {
    name: "tokens",
    table: "tokens",
    lists: [
      { name: "tokenomics", table: "tokenomics", parent: "token_id", key: [] },
      { name: "allocations", table: "tokenomics_allocations", parent: "token_id", key: ["position"] },
      { name: "vesting", table: "tokenomics_vesting", parent: "token_id", key: ["position"] },
      { name: "utilities", table: "tokenomics_utilities", parent: "token_id", key: ["position"] },
    ],
  },
  {
    name: "people",
    table: "people",
    lists: [
      // One investment per project (its latest), so the project identifies it.
      { name: "investments", table: "person_investments", parent: "person_id", key: ["project_id"] },
      { name: "roles", table: "person_roles", parent: "person_id", key: ["position"] },
    ],
  },
  { name: "funds", table: "funds", lists: [] },
  { name: "stocks", table: "stocks", lists: [] },
  { name: "news", table: "news", lists: [{ name: "entities", table: "news_entities", parent: "news_id", key: ["position"] }] },
  { name: "events", table: "events", lists: [] },
  { name: "x_accounts", table: "x_accounts", lists: [] },
];

/**
 * A ranked precomputed snapshot. `group` splits one table into several snapshots (one per day,
 * one per period and direction), named `<name>/<group values>`.
 */
export interface RankingSpec {
  name: string;
  table: string;
  group: string[];
  entry: string[];
  /** Where the `as_of` comes from: a row of `snapshots`, or the group's row of `trending_days`. */
  asOf: { snapshot: string } | "trending_days" | null;
  /**
   * Whether the compile's shrink guard counts its entries (compiler/shrink.ts): not for the top
   * movers, since which tokens rise or fall changes with every market, not with curation.
   */
  shrinkGuard: boolean;
}

export const rankingSpecs: readonly RankingSpec[] = [
  { name: "trending_projects", table: "trending_projects", group: [], entry: ["project_id"], asOf: { snapshot: "trending_projects" }, shrinkGuard: true },
  { name: "trending_entities", table: "trending_entities", group: ["day"], entry: ["entity_type", "entity_id"], asOf: "trending_days", shrinkGuard: true },
  { name: "fund_rankings", table: "fund_rankings", group: [], entry: ["fund_id"], asOf: { snapshot: "fund_rankings" }, shrinkGuard: true },
  { name: "stock_rankings", table: "stock_rankings", group: [], entry: ["stock_id"], asOf: { snapshot: "stock_rankings" }, shrinkGuard: true },
  { name: "market", table: "market_assets", group: [], entry: ["token_id"], asOf: { snapshot: "market" }, shrinkGuard: true },
  { name: "top_movers", table: "market_movers", group: ["period", "direction"], entry: ["token_id"], asOf: null, shrinkGuard: false },
];

/** The market's one summary row, compared field by field under the `market` snapshot. */
export const MARKET_SUMMARY_TABLE = "market_snapshot";
