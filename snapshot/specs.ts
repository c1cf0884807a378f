// What the diff compares, table by table: the families (a record and its nested lists) and the
// precomputed snapshots (ranked entries). Tables derived from others (search index, X handle
// index, unlock plans, trending_days' and snapshots' rows, which become `as_of` changes) are not listed: a change
// in them always shows as a change of the records they derive from, or in the manifest.
//
// Each spec also says how a reviewer reads its columns, so that `cei diff`'s outputs and its
// sanity warnings (snapshot/warnings.ts, docs/diff.md) need no code of their own per family:
// - `types`: columns whose API type differs from what SQLite stores (booleans stored 0/1, lists
//   stored as JSON text), and dates and date-times, which the Markdown shows as dates;
// - `amounts`: a price or a TVL, whose move by more than a factor warns (`value_jump`);
// - `quiet`: what follows from other data or from observations (counts, TVL, the market, live
//   signals): folded in the Markdown unless a warning names it.

/** A column's API type where it is not the stored one, or a date or date-time (ISO 8601 text). */
export type ValueType = "boolean" | "list" | "date" | "datetime";

export interface ColumnSpec {
  types?: Readonly<Record<string, ValueType>>;
  /** Prices and TVLs: a move by more than a factor is a `value_jump` warning. */
  amounts?: readonly string[];
}

/** A nested list of a record, or a one-row attachment (`key` empty), e.g. a project's TVL. */
export interface ListSpec extends ColumnSpec {
  name: string;
  table: string;
  parent: string;
  /**
   * What identifies an item within its record. Lists whose items have no id the compiler keeps
   * unique are compared position by position (`["position"]`); otherwise `position` is ignored,
   * so an insertion does not report every later item as changed.
   */
  key: string[];
  /** Observed values rather than curated ones (a TVL): folded in the Markdown unless a warning names them. */
  quiet?: boolean;
}

export interface FamilySpec extends ColumnSpec {
  name: string;
  table: string;
  lists: ListSpec[];
  /** The record's human name (shown beside its id) and its public slug: renaming and re-slugging at once warns. */
  label?: string;
  slug?: string;
  /** Columns the compiler derives from others (counts, flags): folded in the Markdown, since their cause shows. */
  quiet?: readonly string[];
}

export const familySpecs: readonly FamilySpec[] = [
  {
    name: "projects",
    table: "projects",
    label: "name",
    slug: "slug",
    quiet: ["feature_count", "event_count", "round_count"],
    lists: [
      { name: "features", table: "project_features", parent: "project_id", key: ["feature_id"], types: { chain_ids: "list", last_verified_at: "datetime" } },
      { name: "events", table: "project_events", parent: "project_id", key: ["id"], types: { occurred_at: "datetime" } },
      { name: "funding_rounds", table: "funding_rounds", parent: "project_id", key: ["position"], types: { announced_at: "datetime" } },
      { name: "tvl", table: "project_tvl", parent: "project_id", key: [], types: { as_of: "date" }, amounts: ["tvl_usd"], quiet: true },
    ],
  },
  {
    name: "tokens",
    table: "tokens",
    label: "name",
    slug: "slug",
    lists: [
      // One contract per chain, so the chain identifies it.
      { name: "contracts", table: "token_contracts", parent: "token_id", key: ["chain_id"] },
      { name: "tokenomics", table: "tokenomics", parent: "token_id", key: [], types: { as_of: "datetime" } },
      { name: "allocations", table: "tokenomics_allocations", parent: "token_id", key: ["position"] },
      { name: "vesting", table: "tokenomics_vesting", parent: "token_id", key: ["position"], types: { start_at: "datetime", cliff_at: "datetime", end_at: "datetime" } },
      { name: "utilities", table: "tokenomics_utilities", parent: "token_id", key: ["position"] },
    ],
  },
  {
    name: "people",
    table: "people",
    label: "full_name",
    slug: "slug",
    types: { is_search_candidate: "boolean" },
    quiet: ["investment_count", "role_count", "is_search_candidate"],
    lists: [
      // One investment per project (its latest), so the project identifies it.
      { name: "investments", table: "person_investments", parent: "person_id", key: ["project_id"] },
      { name: "roles", table: "person_roles", parent: "person_id", key: ["position"], types: { is_current: "boolean" } },
    ],
  },
  {
    name: "funds",
    table: "funds",
    label: "name",
    slug: "slug",
    quiet: ["portfolio_count", "partner_count"],
    lists: [
      // One entry per project (its latest round) and per person, so they identify the entries.
      { name: "portfolio", table: "fund_portfolio", parent: "fund_id", key: ["project_id"] },
      { name: "partners", table: "fund_partners", parent: "fund_id", key: ["person_id"] },
    ],
  },
  {
    name: "stocks",
    table: "stocks",
    label: "name",
    slug: "slug",
    types: { ipo_date: "date", is_pre_ipo: "boolean" },
    quiet: ["story_count"],
    lists: [{ name: "news", table: "stock_news", parent: "stock_id", key: ["news_id"] }],
  },
  {
    name: "narratives",
    table: "narratives",
    label: "name",
    slug: "slug",
    quiet: ["project_count"],
    lists: [
      // A narrative names a project once (the compiler refuses a repeat).
      { name: "projects", table: "narrative_projects", parent: "narrative_id", key: ["project_id"] },
      { name: "timeline", table: "narrative_timeline", parent: "narrative_id", key: ["position"], types: { date: "date" } },
    ],
  },
  {
    name: "news",
    table: "news",
    label: "title",
    types: { published_at: "datetime" },
    lists: [{ name: "entities", table: "news_entities", parent: "news_id", key: ["position"] }],
  },
  { name: "events", table: "events", label: "name", slug: "slug", types: { start_date: "date", end_date: "date" }, lists: [] },
  { name: "x_accounts", table: "x_accounts", lists: [] },
];

/**
 * A ranked precomputed snapshot. `group` splits one table into several snapshots (one per day,
 * one per period and direction), named `<name>/<group values>`.
 */
export interface RankingSpec extends ColumnSpec {
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
  /**
   * Entries that follow the market or live signals, which change at every compile: folded in the
   * Markdown unless a warning names them, and not watched for a reshuffle. Otherwise entries
   * entering, leaving or displaced are shown, and a reshuffle warns.
   */
  quiet?: boolean;
  /** Positions are a measured rank (market cap): a jump of many positions warns (`rank_jump`). */
  rankJump?: boolean;
  /** A one-row table of figures about the whole snapshot (the market's totals), compared field by field. */
  summary?: ColumnSpec & { table: string };
}

/** The market's one summary row, compared field by field under the `market` snapshot. */
export const MARKET_SUMMARY_TABLE = "market_snapshot";

export const rankingSpecs: readonly RankingSpec[] = [
  { name: "trending_projects", table: "trending_projects", group: [], entry: ["project_id"], asOf: { snapshot: "trending_projects" }, shrinkGuard: true, quiet: true },
  { name: "trending_entities", table: "trending_entities", group: ["day"], entry: ["entity_type", "entity_id"], asOf: "trending_days", shrinkGuard: true, quiet: true },
  { name: "fund_rankings", table: "fund_rankings", group: [], entry: ["fund_id"], asOf: { snapshot: "fund_rankings" }, shrinkGuard: true },
  { name: "stock_rankings", table: "stock_rankings", group: [], entry: ["stock_id"], asOf: { snapshot: "stock_rankings" }, shrinkGuard: true },
  // Ranked by a signal observed anew at each compile, as trending is: quiet.
  { name: "narrative_rankings", table: "narrative_rankings", group: [], entry: ["narrative_id"], asOf: { snapshot: "narrative_rankings" }, shrinkGuard: true, quiet: true },
  {
    name: "market",
    table: "market_assets",
    group: [],
    entry: ["token_id"],
    asOf: { snapshot: "market" },
    shrinkGuard: true,
    quiet: true,
    rankJump: true,
    amounts: ["price_usd"],
    summary: { table: MARKET_SUMMARY_TABLE, types: { as_of: "datetime" }, amounts: ["btc_price_usd", "eth_price_usd"] },
  },
  { name: "top_movers", table: "market_movers", group: ["period", "direction"], entry: ["token_id"], asOf: null, shrinkGuard: false, quiet: true },
];
