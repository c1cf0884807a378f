// Step 6c: the search index, over each family's `search` columns, in the order of the contract's
// SEARCH_KEY_FAMILIES (snapshot/search-keys.ts). One row per (entity, lower-cased key), inserted sorted by
// (key, entity_type, entity_id) so that rowid order is key order, then one FTS5 trigram index per
// family over that family's rows (merged into one segment), and each family's trigram counts. Lower-casing runs in JS
// (`js_lower`) so that it matches the server's String.prototype.toLowerCase for non-ASCII names,
// which SQLite's lower() does not.
import type Database from "better-sqlite3";
import { exactSearchKey, exactSearchKeyColumns, SEARCH_KEY_FAMILIES, searchKeyColumns, type SearchKeyFamily } from "../snapshot/search-keys.ts";

export function registerSearchFunctions(db: Database.Database): void {
  db.function("js_lower", { deterministic: true }, (value: unknown) => (typeof value === "string" ? value.toLowerCase() : null));
  db.function("exact_search_key", { deterministic: true }, (value: unknown) => (typeof value === "string" ? exactSearchKey(value) : null));
}

/** The exact-only keys (decision 33), keyed as the server keys a query; an entity gives a key once. */
const exactKeySelects = Object.entries(exactSearchKeyColumns).map(([type, [table, column, id]]) =>
  `SELECT exact_search_key(${column}) AS key, '${type}' AS entity_type, ${id} AS entity_id FROM main.${table}`);

/**
 * The key of `column`, lower-cased as the server does: SQLite's lower() for ASCII text (it folds
 * exactly A-Z, as toLowerCase does there), js_lower for the rest.
 */
const lowered = (column: string): string => `CASE WHEN octet_length(${column}) = length(${column}) THEN lower(${column}) ELSE js_lower(${column}) END`;

/**
 * One SELECT per searchable column. A (key, family, id) can only repeat within one row (ids are
 * unique in their table), so each column skips a key an earlier column of its row already gave
 * (IS NOT: NULLs are equal, as in UNION), and the arms are joined by UNION ALL: the same rows as a
 * UNION, without its de-duplicating b-tree (~0.4 s at 1M records).
 */
function keySelects(type: SearchKeyFamily): string[] {
  const [table, columns, where] = searchKeyColumns[type];
  return columns.map((column, i) => {
    const conditions = [
      ...(where === undefined ? [] : [where]),
      ...columns.slice(0, i).map((earlier) => `${lowered(column)} IS NOT ${lowered(earlier)}`),
    ];
    return `SELECT ${lowered(column)} AS key, '${type}' AS entity_type, id AS entity_id FROM main.${table}${conditions.length === 0 ? "" : ` WHERE ${conditions.join(" AND ")}`}`;
  });
}

/**
 * Each family's FTS5 index is built from one in-memory batch of its keys: FTS5 writes its pending
 * terms out as a new segment whenever they pass `hashsize` (1 MiB by default) and merges segments
 * as they accumulate, work that the final 'optimize' (one segment per family) then redoes. The keys
 * are fed in rowid order straight from the covering index search_keys_by_family (within a family,
 * (key, entity_id) order is rowid order; FTS5 would flush rather than misfile a smaller rowid), not
 * sorted again. The default is restored afterwards (the setting is stored in the table's config;
 * the snapshot is never written to after the compile). At 1M records: the search index 2.81 ->
 * 2.51-2.59 s of a 20 s compile, every segment block the same (docs/performance.md).
 */
const FTS_BUILD_HASH_BYTES = 256 * 1024 * 1024;
const FTS_DEFAULT_HASH_BYTES = 1024 * 1024;

export const searchIndexSql = `
INSERT INTO search_keys (key, entity_type, entity_id)
  SELECT key, entity_type, entity_id FROM (
    ${SEARCH_KEY_FAMILIES.flatMap(keySelects).join("\n    UNION ALL ")})
  ORDER BY key, entity_type, entity_id;
INSERT INTO search_exact_keys (key, entity_type, entity_id)
  SELECT DISTINCT key, entity_type, entity_id FROM (${exactKeySelects.join(" UNION ALL ")})
  ORDER BY key, entity_type, entity_id;
${SEARCH_KEY_FAMILIES.map((type) => `
INSERT INTO search_fts_${type} (search_fts_${type}, rank) VALUES ('hashsize', ${FTS_BUILD_HASH_BYTES});
INSERT INTO search_fts_${type} (rowid, key) SELECT rowid, key FROM search_keys WHERE entity_type = '${type}' ORDER BY key, entity_id, rowid;
INSERT INTO search_fts_${type} (search_fts_${type}) VALUES ('optimize');
INSERT INTO search_fts_${type} (search_fts_${type}, rank) VALUES ('hashsize', ${FTS_DEFAULT_HASH_BYTES});
CREATE VIRTUAL TABLE temp.search_vocab USING fts5vocab(main, search_fts_${type}, row);
INSERT INTO search_trigrams (trigram, entity_type, documents) SELECT term, '${type}', doc FROM temp.search_vocab;
DROP TABLE temp.search_vocab;`).join("\n")}
`;
