// The search index's layout in a compiled file: which table and columns each family's search keys
// come from. The compiler builds search_keys and the trigram indexes from it
// (compiler/search-index.ts); the server reads a hit's entry from the same table.
/** The families with rows in search_keys (X accounts are found by exact handle only). */
export const SEARCH_KEY_FAMILIES = ["event", "fund", "news", "person", "project", "stock", "token"] as const;
export type SearchKeyFamily = (typeof SEARCH_KEY_FAMILIES)[number];

/** The searchable columns of each family; news and events are the tables get_news and get_event serve. */
export const searchKeyColumns: Record<SearchKeyFamily, [table: string, columns: string[], where?: string]> = {
  project: ["projects", ["name", "slug"]],
  token: ["tokens", ["name", "symbol", "slug"]],
  fund: ["funds", ["name", "slug"]],
  stock: ["stocks", ["name", "ticker", "slug"]],
  person: ["people", ["full_name", "slug"], "is_search_candidate = 1"],
  news: ["news", ["title"]],
  event: ["events", ["name", "slug"]],
};

/** The table each family's keys come from: the server reads a hit's entry from its row there. */
export const SEARCH_KEY_TABLES = Object.fromEntries(
  Object.entries(searchKeyColumns).map(([family, [table]]) => [family, table]),
) as Record<SearchKeyFamily, string>;

/** The most keys one entity has in its family (one per searchable column; equal keys are one). */
export const SEARCH_KEYS_PER_ENTITY = Math.max(...Object.values(searchKeyColumns).map(([, columns]) => columns.length));

/**
 * Keys a search matches only when the whole query equals them, never by prefix or substring
 * (decision 33: token contract addresses). Each family's table, key column and entity id column;
 * the compiler writes one row of search_exact_keys per value, as `exactSearchKey` keys it, and the
 * server looks the query up there, keyed the same way.
 */
export const exactSearchKeyColumns: Partial<Record<SearchKeyFamily, [table: string, column: string, id: string]>> = {
  token: ["token_contracts", "address", "token_id"],
};

const EVM_ADDRESS = /^0x[0-9a-fA-F]{40}$/;

/**
 * How an exact-only key is compared (decision 33): an EVM address (`0x` and 40 hex digits) whatever
 * its case, anything else byte for byte. Applied to the stored value and to the trimmed query alike.
 */
export function exactSearchKey(value: string): string {
  return EVM_ADDRESS.test(value) ? value.toLowerCase() : value;
}
