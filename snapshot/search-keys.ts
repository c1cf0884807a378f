// The search index's layout in a compiled file: which table and columns each family's search keys
// come from. The compiler builds search_keys and the trigram indexes from it
// (compiler/search-index.ts); the server reads a hit's entry from the same table.
/** The families with rows in search_keys (X accounts are found by exact handle only). */
export const SEARCH_KEY_FAMILIES = ["event", "fund", "narrative", "news", "person", "project", "stock", "token"] as const;
export type SearchKeyFamily = (typeof SEARCH_KEY_FAMILIES)[number];

/** The searchable columns of each family; news, events and narratives are the tables their detail operations serve. */
export const searchKeyColumns: Record<SearchKeyFamily, [table: string, columns: string[], where?: string]> = {
  project: ["projects", ["name", "slug"]],
  token: ["tokens", ["name", "symbol", "slug"]],
  fund: ["funds", ["name", "slug"]],
  stock: ["stocks", ["name", "ticker", "slug"]],
  person: ["people", ["full_name", "slug"], "is_search_candidate = 1"],
  news: ["news", ["title"]],
  event: ["events", ["name", "slug"]],
  narrative: ["narratives", ["name", "slug"]],
};

/** The table each family's keys come from: the server reads a hit's entry from its row there. */
export const SEARCH_KEY_TABLES = Object.fromEntries(
  Object.entries(searchKeyColumns).map(([family, [table]]) => [family, table]),
) as Record<SearchKeyFamily, string>;

/** The most keys one entity has in its family (one per searchable column; equal keys are one). */
export const SEARCH_KEYS_PER_ENTITY = Math.max(...Object.values(searchKeyColumns).map(([, columns]) => columns.length));
