// Step 6c: the search index (decision 29), from the contract's layout (snapshot/search-keys.ts) and
// each family's search declaration (prominence signals). Every searchable entity gets its place in
// one global order, ord: prominence (higher first, none last), then the shorter name, then id,
// then family. Then, all in ord order: search_entities (the folded name and slug), search_exact
// (every exact key, by key then ord), the FTS5 trigram indexes (rowid = ord; one per named family and
// one over the default families) and each index's trigram counts. Text is folded in JS
// (snapshot/fold.ts, as the server folds a query).
import type Database from "better-sqlite3";
import { fold } from "../snapshot/fold.ts";
import { SEARCH_KEY_FAMILIES, SEARCH_TRIGRAM_INDEXES, searchLayout, type SearchKeyFamily } from "../snapshot/search-keys.ts";
import { families } from "./families/index.ts";
import type { SearchDeclaration } from "./families/define.ts";
import { prominenceScores } from "./policy.ts";

export function registerSearchFunctions(db: Database.Database): void {
  db.function("cei_fold", { deterministic: true }, (value: unknown) => (typeof value === "string" ? fold(value) : null));
}

const declarations = new Map<SearchKeyFamily, SearchDeclaration>(
  families.flatMap((f) => (f.search === undefined ? [] : [[f.search.layout, f.search] as const])),
);

/** Each family's searchable rows with their name (as written, for its length), folded name and slug. */
function entitySelect(family: SearchKeyFamily): string {
  const { table, name, slug, where } = searchLayout[family];
  const text = (column: string | undefined) => (column === undefined ? "NULL" : `cei_fold(${column})`);
  return `SELECT '${family}' AS entity_type, id AS entity_id, ${name === undefined ? "0" : `length(${name})`} AS name_length,
      ${text(name)} AS name, ${text(slug)} AS slug FROM main.${table}${where === undefined ? "" : ` WHERE ${where}`}`;
}

/** Every signal's score per entity: curated, compiled, and trending appearances (policy.ts). */
function prominenceSql(): string {
  const scores = SEARCH_KEY_FAMILIES.flatMap((family) => {
    const declared = declarations.get(family);
    if (declared === undefined) return [];
    const { table, id } = declared.curated;
    return [
      `SELECT '${family}', ${id}, prominence FROM ${table} WHERE prominence IS NOT NULL`,
      ...(declared.signals ?? []).map((signal) => `SELECT '${family}', * FROM (${signal})`),
    ];
  });
  const appearances = [
    "SELECT entity_type, entity_id FROM main.trending_entities",
    ...SEARCH_KEY_FAMILIES.flatMap((family) => (declarations.get(family)?.appearances ?? []).map((sql) => `SELECT '${family}', * FROM (${sql})`)),
  ];
  return `
CREATE TEMP TABLE search_scores (entity_type TEXT, entity_id TEXT, score INTEGER);
INSERT INTO search_scores ${scores.join("\n  UNION ALL ")};
INSERT INTO search_scores SELECT entity_type, entity_id, ${prominenceScores.trending("count(*)")}
  FROM (${appearances.join("\n  UNION ALL ")}) GROUP BY entity_type, entity_id;
CREATE INDEX temp.search_scores_by_entity ON search_scores (entity_type, entity_id, score);`;
}

/** The exact keys of a family: name, slug, the layout's exact columns and further keys, each with the entity's ord. */
function exactSelects(family: SearchKeyFamily): string[] {
  const { table, name, slug, exact, exactFrom = [] } = searchLayout[family];
  const columns = [name, slug, ...exact].filter((column) => column !== undefined);
  // Joined to search_order: only searchable rows (the layout's `where`) have an ord.
  const own = columns.map((column) => `SELECT o.ord, o.entity_id, cei_fold(t.${column}) AS key FROM main.${table} t
      JOIN search_order o ON o.entity_type = '${family}' AND o.entity_id = t.id`);
  const further = exactFrom.map(({ sql, raw }) => `SELECT o.ord, o.entity_id, ${raw === true ? "char(1) || k.key" : "cei_fold(k.key)"} AS key
      FROM (${sql}) AS k JOIN search_order o ON o.entity_type = '${family}' AND o.entity_id = k.entity_id`);
  return [...own, ...further].map((select) => `SELECT '${family}' AS entity_type, key, ord, entity_id FROM (${select}) WHERE key <> ''`);
}

/**
 * Each FTS5 index is built from one in-memory batch of its rows: FTS5 writes its pending
 * terms out as a new segment whenever they pass `hashsize` (1 MiB by default) and merges segments
 * as they accumulate, work that the final 'optimize' (one segment per index) then redoes. The rows
 * are fed in ord order, which is rowid order. The default is restored afterwards (the setting is
 * stored in the table's config; the snapshot is never written to after the compile).
 */
const FTS_BUILD_HASH_BYTES = 256 * 1024 * 1024;
const FTS_DEFAULT_HASH_BYTES = 1024 * 1024;

/** The text a trigram index holds for an entity: a space before every word of the name, then of the slug. */
const ftsText = "' ' || coalesce(name, '') || CASE WHEN slug IS NULL THEN '' ELSE char(10) || ' ' || slug END";

export const searchIndexSql = `
${prominenceSql()}
CREATE TEMP TABLE search_order AS
  SELECT row_number() OVER (ORDER BY prominence DESC NULLS LAST, name_length, entity_id, entity_type) AS ord, *
  FROM (SELECT e.*, (SELECT max(score) FROM search_scores s WHERE s.entity_type = e.entity_type AND s.entity_id = e.entity_id) AS prominence
    FROM (${SEARCH_KEY_FAMILIES.map(entitySelect).join("\n    UNION ALL ")}) AS e);
CREATE UNIQUE INDEX temp.search_order_by_entity ON search_order (entity_type, entity_id);
INSERT INTO search_entities (ord, entity_type, entity_id, name, slug, prominence)
  SELECT ord, entity_type, entity_id, name, CASE WHEN slug = name OR slug = '' THEN NULL ELSE slug END, prominence
  FROM search_order ORDER BY ord;
INSERT INTO search_exact (key, ord, entity_type, entity_id)
  SELECT DISTINCT key, ord, entity_type, entity_id FROM (
    ${SEARCH_KEY_FAMILIES.flatMap(exactSelects).join("\n    UNION ALL ")})
  ORDER BY key, ord;
${SEARCH_TRIGRAM_INDEXES.map(({ name, families: indexed }) => ({ name, inIndex: `entity_type IN (${indexed.map((family) => `'${family}'`).join(", ")})` })).map(({ name, inIndex }) => `
INSERT INTO search_fts_${name} (search_fts_${name}, rank) VALUES ('hashsize', ${FTS_BUILD_HASH_BYTES});
INSERT INTO search_fts_${name} (rowid, words) SELECT ord, ${ftsText} FROM search_entities WHERE ${inIndex} ORDER BY ord;
INSERT INTO search_fts_${name} (search_fts_${name}) VALUES ('optimize');
INSERT INTO search_fts_${name} (search_fts_${name}, rank) VALUES ('hashsize', ${FTS_DEFAULT_HASH_BYTES});
CREATE VIRTUAL TABLE temp.search_vocab USING fts5vocab(main, search_fts_${name}, row);
INSERT INTO search_trigrams (trigram, search_index, documents) SELECT term, '${name}', doc FROM temp.search_vocab;
INSERT INTO search_trigrams (trigram, search_index, documents)
  SELECT '', '${name}', count(*) FROM search_entities WHERE ${inIndex};
DROP TABLE temp.search_vocab;`).join("\n")}
DROP TABLE search_order;
DROP TABLE search_scores;
`;
