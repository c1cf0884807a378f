// The search index's layout in a compiled file (decision 29): for each searchable family, the table
// its entries are read from, its name and slug (matched exactly, by word prefix, by prefix and as a
// substring) and its exact-only keys (matched only when the whole folded query equals them). The
// compiler builds the search tables from it (compiler/search-index.ts); the server reads a hit's
// entry from the same table. Adding a family, or an exact-only key, is a declaration here.

/** The families in the index, in the order their tables are built (the file's bytes depend on it). */
export const SEARCH_KEY_FAMILIES = ["event", "fund", "narrative", "news", "person", "project", "stock", "token", "x_account"] as const;
export type SearchKeyFamily = (typeof SEARCH_KEY_FAMILIES)[number];

/**
 * An exact-only key: a SELECT of `entity_id` and `key` columns, one row per key. A key is folded (fold.ts) unless `raw`,
 * when only the query as sent (trimmed) equals it, byte for byte. The compiler evaluates it with
 * the kept (k_*) tables attached, so that a key may come from data the snapshot does not serve.
 */
export interface ExactKey {
  sql: string;
  raw?: boolean;
}

export interface SearchFamilyLayout {
  /** The snapshot table of the family's entries, with an `id` column. */
  table: string;
  /** The name column: ranked by its length (shorter first), matched every way. */
  name?: string;
  /** The slug column: matched exactly, by prefix and as a substring, never by word prefix. */
  slug?: string;
  /** Columns of `table` matched exactly only (the id, a symbol, a ticker). */
  exact: readonly string[];
  /** Further exact-only keys from other tables. */
  exactFrom?: readonly ExactKey[];
  /** Which rows are searchable at all (people: the bounded candidate set of operation 2). */
  where?: string;
}

export const searchLayout: Record<SearchKeyFamily, SearchFamilyLayout> = {
  project: {
    table: "projects", name: "name", slug: "slug", exact: ["id"],
    // A project is found by its own token's symbol (decision 29).
    exactFrom: [{ sql: "SELECT project_id AS entity_id, symbol AS key FROM k_tokens WHERE project_id IS NOT NULL" }],
  },
  token: {
    table: "tokens", name: "name", slug: "slug", exact: ["id", "symbol"],
    // The whole address of a written contract (decision 33): on an EVM chain in any case (folded),
    // on any other byte for byte (a Solana address in other letters is another address).
    exactFrom: [
      { sql: "SELECT token_id AS entity_id, address AS key FROM main.token_contracts WHERE chain_id LIKE 'eip155:%'" },
      { sql: "SELECT token_id AS entity_id, address AS key FROM main.token_contracts WHERE chain_id NOT LIKE 'eip155:%'", raw: true },
    ],
  },
  fund: { table: "funds", name: "name", slug: "slug", exact: ["id"] },
  stock: { table: "stocks", name: "name", slug: "slug", exact: ["id", "ticker"] },
  person: { table: "people", name: "full_name", slug: "slug", exact: ["id"], where: "is_search_candidate = 1" },
  news: { table: "news", name: "title", exact: ["id"] },
  event: { table: "events", name: "name", slug: "slug", exact: ["id"] },
  narrative: { table: "narratives", name: "name", slug: "slug", exact: ["id"] },
  // Found by exact id here, and by exact handle through x_handle_index (keyed, never stored).
  x_account: { table: "x_accounts", exact: ["id"] },
};

/** The table each family's entries come from: the server reads a hit's entry from its row there. */
export const SEARCH_KEY_TABLES = Object.fromEntries(
  Object.entries(searchLayout).map(([family, layout]) => [family, layout.table]),
) as Record<SearchKeyFamily, string>;

/** The families with names or slugs: those with word, prefix and substring indexes. */
export const NAMED_SEARCH_FAMILIES = SEARCH_KEY_FAMILIES.filter((family) => searchLayout[family].name !== undefined || searchLayout[family].slug !== undefined);

/** The six families of the spec: searched when a request names no `types`. */
export const SEARCH_DEFAULT_FAMILIES = ["project", "fund", "person", "token", "stock", "x_account"] as const satisfies readonly SearchKeyFamily[];

/**
 * The trigram indexes (table search_fts_<name>), each over the named entities of its families in
 * the stored order: one per named family, and `default` over the named families of
 * SEARCH_DEFAULT_FAMILIES together. A search that names every family of `default` reads that one
 * index: each index read opens a doclist per trigram, so one index instead of five costs a fifth
 * of the opening, and its candidates arrive in the stored order across families. A search naming
 * fewer families reads theirs alone, so that no other family's entities spend its candidates.
 */
export const SEARCH_TRIGRAM_INDEXES: ReadonlyArray<{ name: string; families: readonly SearchKeyFamily[] }> = [
  { name: "default", families: NAMED_SEARCH_FAMILIES.filter((family) => (SEARCH_DEFAULT_FAMILIES as readonly string[]).includes(family)) },
  ...NAMED_SEARCH_FAMILIES.map((family) => ({ name: family, families: [family] })),
];
