// Step 6c: the search index. One row per (entity, lower-cased key), inserted sorted by
// (key, entity_type, entity_id) so that rowid order is key order, then the FTS5 trigram index
// over it. Lower-casing runs in JS (`js_lower`) so that it matches the server's
// String.prototype.toLowerCase for non-ASCII names, which SQLite's lower() does not.
import type Database from "better-sqlite3";

export function registerSearchFunctions(db: Database.Database): void {
  db.function("js_lower", { deterministic: true }, (value: unknown) => (typeof value === "string" ? value.toLowerCase() : null));
}

const keys: Array<[entityType: string, table: string, columns: string[], where?: string]> = [
  ["project", "projects", ["name", "slug"]],
  ["token", "tokens", ["name", "symbol", "slug"]],
  ["fund", "funds", ["name", "slug"]],
  ["stock", "stocks", ["name", "ticker", "slug"]],
  ["person", "people", ["full_name", "slug"], "is_search_candidate = 1"],
];

export const searchIndexSql = `
INSERT INTO search_keys (key, entity_type, entity_id)
  SELECT key, entity_type, entity_id FROM (
    ${keys
      .flatMap(([type, table, columns, where]) =>
        columns.map((c) => `SELECT js_lower(${c}) AS key, '${type}' AS entity_type, id AS entity_id FROM main.${table}${where ? ` WHERE ${where}` : ""}`),
      )
      .join("\n    UNION ")})
  ORDER BY key, entity_type, entity_id;
INSERT INTO search_fts (search_fts) VALUES ('rebuild');
CREATE VIRTUAL TABLE temp.search_vocab USING fts5vocab(main, search_fts, row);
INSERT INTO search_trigrams (trigram, documents) SELECT term, doc FROM temp.search_vocab ORDER BY term;
DROP TABLE temp.search_vocab;
`;
