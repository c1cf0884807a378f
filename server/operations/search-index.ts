// The search index shared by entity search (1) and people search (2), decision 29: the query is
// folded as the compiler folded the index (snapshot/fold.ts), then matched class by class, each
// class in the order the compiler stored (prominence, shorter name, id):
//   1. exact: a name, slug, id, symbol, ticker or other exact-only key equals the query, or an X
//      handle does (keyed hash, x_handle_index);
//   2. every query word is a word prefix of the name, in any order;
//   3. the name or slug starts with the query;
//   4. the query occurs inside the name or slug (3+ characters).
// Classes 2-4 read trigram indexes whose rowids are the stored order (the default families' one
// when a search names them all, else each named family's), so every candidate stream arrives
// already ordered; no search examines more than SEARCH_CANDIDATE_LIMIT candidates in each of its
// two index passes (decision 21).
import type Database from "better-sqlite3";
import { z } from "zod";
import { fold, foldedWords } from "../../snapshot/fold.ts";
import {
  SEARCH_DEFAULT_FAMILIES, SEARCH_KEY_TABLES, SEARCH_TRIGRAM_INDEXES, searchLayout, type SearchKeyFamily,
} from "../../snapshot/search-keys.ts";
import { handleSearchHasher, normaliseHandle } from "../../snapshot/x-ids.ts";
import { candidateTrigrams, statementCache, type TrigramMatch } from "./_search-trigrams.ts";

/** Which trigrams a pass reads (exported for its tests). */
export { candidateTrigrams };

/** The six families of the spec: searched and echoed when a request names no `types`. */
export const defaultSearchFamilies = SEARCH_DEFAULT_FAMILIES;
/** Every family, in the order `types` is echoed; news, events and narratives only when named (decisions 25 and 31). */
export const searchFamilies = [...defaultSearchFamilies, "news", "event", "narrative"] as const;
export type SearchFamily = (typeof searchFamilies)[number];
/**
 * What a search returns for each hit: its entry, ready to send, a JSON expression over one row of
 * the family's table (SEARCH_KEY_TABLES: the row whose `id` the hit names). Every entry must name
 * its entity (its family and id): a search returns each entry once. The search's own statements
 * compute the entries of the rows it returns, never of a candidate that fails.
 */
export interface SearchEntries {
  families: Partial<Record<SearchKeyFamily, string>>;
}

/**
 * The most candidates (entities holding the query's rarest trigrams, in stored order) each of a
 * search's two index passes examines: one for word prefixes and prefixes (classes 2-3), one for
 * substrings (class 4). A match beyond them is not returned: docs/api.md, "Search", states the
 * consequence. Entities already found never count.
 */
export const SEARCH_CANDIDATE_LIMIT = 1_000;

/** Trigram FTS cannot match fewer than 3 characters: shorter queries get classes 1-3 only. */
const SUBSTRING_MIN_CHARS = 3;
const HANDLE = /^[A-Za-z0-9_]{1,15}$/;
/** A query without a single letter or digit (`*`, `%`, `_`, `.*`, `..`, spaces) would list everything. */
const HAS_LETTER_OR_DIGIT = /[\p{L}\p{N}]/u;

/** The text rules of operations 1 and 2: 2-500 characters, and not a bulk-listing attempt. */
export const searchText = z
  .string()
  .min(2, "must be 2-500 characters")
  .max(500, "must be 2-500 characters")
  .refine((text) => HAS_LETTER_OR_DIGIT.test(text), {
    message: "must contain a letter or digit: listing everything is not supported",
    params: { code: "bulk_listing" },
    abort: true,
  })
  .refine((text) => text.length < 2 || text.trim().length >= 2, { message: "must be 2-500 characters after trimming spaces", params: { code: "too_small" } });

export interface SearchIndex {
  /** The hits' entries, each entity once, in class order then stored order. */
  search(text: string, families: ReadonlySet<SearchFamily>, limit: number): string[];
}

type Row<T> = [T, string | null];

/**
 * `handleSearchKey` is the hex key of x_handle_index, derived from the compile secret (see
 * snapshot/x-ids.ts); without it no X account is found by handle.
 */
export function createSearchIndex(
  snapshot: Database.Database,
  handleSearchKey: string | undefined,
  entries: SearchEntries,
  candidateLimit = SEARCH_CANDIDATE_LIMIT,
): SearchIndex {
  /** A family's entry for the row whose id is `id` (an SQL expression). */
  const entryOf = (family: SearchKeyFamily, id: string): string =>
    `SELECT ${entries.families[family]!} FROM ${SEARCH_KEY_TABLES[family]} WHERE id = ${id}`;
  const entry = (keyed: readonly SearchKeyFamily[]): string =>
    `CASE c.entity_type ${keyed.map((family) => `WHEN '${family}' THEN (${entryOf(family, "c.entity_id")})`).join(" ")} END`;
  // Class 1: the query's range of search_exact, already in ord order, kept to the named families;
  // a raw key's range (a family declaring one) is a second statement, merged by ord. The key is
  // bound as a one-key range: as `key = ?` the statement cost ~100 µs more per run (SQLite planned
  // it again for each value bound, measured on 6 families), as a range ~1 µs.
  const exact = statementCache((keyed: readonly SearchKeyFamily[], size: number) => snapshot.prepare<[{ key: string }], Row<number>>(`
    SELECT c.ord, ${entry(keyed)} FROM (SELECT ord, entity_type, entity_id FROM search_exact
      WHERE key >= @key AND key <= @key AND entity_type IN (${keyed.map((family) => `'${family}'`).join(", ")})
      ORDER BY key, ord LIMIT ${size}) AS c`).raw());
  // The candidates of a trigram pass: the entities of the chosen indexes holding their chosen
  // trigrams (parameter m_<index>), in ord order (the rowids), at most `budget`; the test that
  // follows runs in SQL, so that a candidate that fails never becomes a JavaScript row. The
  // entities already found are not filtered out here (a NOT IN over a bound list cost more than
  // the at most `limit` rows it saves): the budget is raised by their number instead, so that they
  // never spend it, and the hits set drops them.
  const candidates = (indexes: readonly string[], budget: number) => `(${indexes.map((index) => `
      SELECT f.rowid AS ord, e.entity_type, e.entity_id, e.name, e.slug FROM search_fts_${index} f JOIN search_entities e ON e.ord = f.rowid
      WHERE search_fts_${index} MATCH @m_${index}`).join("\n      UNION ALL")}
      ORDER BY ord LIMIT ${budget}) AS c`;
  const familiesOf = (indexes: readonly string[]) => indexes.flatMap((index) => INDEX_FAMILIES.get(index)!);
  // Classes 2 and 3 in one pass: @w<i> is ' ' + the i-th query word, a word prefix where
  // ' ' || name holds it; @q the folded query, @n its length in characters. With `substrings`
  // (1), class 4 too: the pass for a query whose two passes would read the same trigrams.
  const substring = "instr(c.name, @q) > 0 OR instr(c.slug, @q) > 0";
  const prefixes = statementCache((indexes: readonly string[], budget: number, words: number, substrings: number) => {
    const wordPrefixes = Array.from({ length: words }, (_, i) => `instr(' ' || c.name, @w${i}) > 0`).join(" AND ");
    const startsWith = "(substr(c.name, 1, @n) = @q OR substr(c.slug, 1, @n) = @q)";
    // A class-2 row comes with its entry; a later class's row waits, and most never get used
    // (the pass reads on for class 2), so it names its entity and its entry is read when needed.
    return snapshot.prepare<[Record<string, string | number>], [number, string | null, SearchKeyFamily, string]>(`
      SELECT CASE WHEN ${wordPrefixes} THEN 2 WHEN ${startsWith} THEN 3 ELSE 4 END,
        CASE WHEN ${wordPrefixes} THEN ${entry(familiesOf(indexes))} END, c.entity_type, c.entity_id FROM ${candidates(indexes, budget)}
      WHERE (${wordPrefixes}) OR ${startsWith}${substrings === 1 ? ` OR ${substring}` : ""}`).raw();
  });
  const entryStatements = new Map<SearchKeyFamily, Database.Statement<[string], string>>();
  const entryById = (family: SearchKeyFamily, id: string): string | null => {
    let statement = entryStatements.get(family);
    if (statement === undefined) {
      statement = snapshot.prepare<[string], string>(entryOf(family, "?")).pluck();
      entryStatements.set(family, statement);
    }
    return statement.get(id) ?? null;
  };
  const substrings = statementCache((indexes: readonly string[], budget: number) => snapshot.prepare<[Record<string, string>], string | null>(`
    SELECT ${entry(familiesOf(indexes))} FROM ${candidates(indexes, budget)}
    WHERE ${substring}`).pluck());
  const trigramDocuments = snapshot.prepare<[string], { index: string; documents: number }>(
    "SELECT search_index AS \"index\", documents FROM search_trigrams WHERE trigram = ?",
  );
  const handleIndex = snapshot.prepare<[string], string>("SELECT x_account_id FROM x_handle_index WHERE handle_hash = ?").pluck();
  const handleHash = handleSearchKey === undefined ? undefined : handleSearchHasher(handleSearchKey);
  const xAccountEntry = entries.families.x_account;
  const handleHit = xAccountEntry === undefined ? undefined : snapshot.prepare<[{ key: string }], Row<number>>(
    `SELECT c.ord, ${entry(["x_account"])} FROM search_exact c WHERE c.key >= @key AND c.key <= @key AND c.entity_type = 'x_account'`).raw();
  const trigrams = candidateTrigrams((trigram) => trigramDocuments.all(trigram), candidateLimit);
  // A raw key (stored as U+0001 + the key) matches the query byte for byte, so only a query of a
  // raw key's length can: the lengths are read on the first search that could need them.
  let rawKeyLengths: { min: number; max: number } | undefined;
  const rawKeyCouldBe = (text: string): boolean => {
    rawKeyLengths ??= snapshot.prepare<[], { min: number | null; max: number | null }>(
      "SELECT min(length(key)) - 1 AS min, max(length(key)) - 1 AS max FROM search_exact WHERE key >= char(1) AND key < char(2)",
    ).get() as { min: number; max: number };
    // length() counts characters; text.length counts UTF-16 units, never fewer.
    return rawKeyLengths.min !== null && text.length >= rawKeyLengths.min && (text.length <= rawKeyLengths.max || [...text].length <= rawKeyLengths.max);
  };

  return {
    search(text, families, limit) {
      const trimmed = text.trim();
      const at = trimmed.startsWith("@");
      const query = fold(at ? trimmed.slice(1) : trimmed);
      const keyed = (Object.keys(SEARCH_KEY_TABLES) as SearchKeyFamily[])
        .filter((family) => families.has(family) && entries.families[family] !== undefined);
      // Entries in the order found, each once (an entry names its entity).
      const hits = new Set<string>();
      const add = (entry: string | null): boolean => {
        // No entry: a key whose row is not in its table, which the compiler never writes.
        if (entry !== null) hits.add(entry);
        return hits.size >= limit;
      };
      // Class 1, with an exact X handle in its place in the stored order.
      const exactRows = query === "" || keyed.length === 0 ? [] : exact(keyed, limit).all({ key: query });
      const rawKeyed = keyed.filter((family) => searchLayout[family].exactFrom?.some((key) => key.raw === true));
      if (rawKeyed.length > 0 && rawKeyCouldBe(trimmed)) for (const row of exact(rawKeyed, limit).all({ key: `\u0001${trimmed}` })) _insertByOrd(exactRows, row);
      const handle = at ? trimmed.slice(1) : trimmed;
      if (families.has("x_account") && handleHit !== undefined && handleHash !== undefined && HANDLE.test(handle)) {
        const id = handleIndex.get(handleHash(handle));
        const row = id === undefined ? undefined : handleHit.get({ key: fold(id) });
        if (row !== undefined) _insertByOrd(exactRows, row);
      }
      for (const [, entry] of exactRows) if (add(entry)) return [...hits];
      const named = keyed.filter((family) => searchLayout[family].name !== undefined || searchLayout[family].slug !== undefined);
      if (named.length === 0 || query === "") return [...hits];
      const indexes = searchIndexesFor(named);

      // Classes 2 and 3: entities holding the trigrams of ' ' + each query word (of the whole
      // query when every word has one character: ' a b'). Class 4: those holding the query's.
      const words = foldedWords(query);
      const wordTexts = words.map((word) => ` ${word}`);
      const wordMatch = trigrams.match(words.some((word) => [...word].length > 1) ? wordTexts : [` ${query}`], indexes);
      const substringMatch = [...query].length < SUBSTRING_MIN_CHARS ? undefined : trigrams.match([query], indexes);
      // When both passes would read the same doclists (a word's first trigram too common to
      // read), they would examine the same candidates: one pass checks all three classes.
      const onePass = wordMatch !== undefined && substringMatch !== undefined && _sameMatch(wordMatch, substringMatch);
      if (wordMatch !== undefined) {
        const parameters: Record<string, string | number> = { ...wordMatch.parameters, q: query, n: [...query].length };
        wordTexts.forEach((word, i) => (parameters[`w${i}`] = word));
        const later: Array<Array<[SearchKeyFamily, string]>> = [[], []];
        for (const [matchClass, entry, family, id] of prefixes(wordMatch.indexes, candidateLimit + hits.size, words.length, onePass ? 1 : 0).iterate(parameters)) {
          if (matchClass === 2) {
            if (add(entry)) return [...hits];
          } else later[matchClass - 3]!.push([family, id]);
        }
        for (const [family, id] of later.flat()) if (add(entryById(family, id))) return [...hits];
      }
      if (onePass || substringMatch === undefined) return [...hits];

      // Class 4, once the earlier classes leave room.
      const parameters = { ...substringMatch.parameters, q: query };
      for (const entry of substrings(substringMatch.indexes, candidateLimit + hits.size).iterate(parameters)) {
        if (add(entry)) break;
      }
      return [...hits];
    },
  };
}

/** Whether two passes would read the same indexes with the same trigrams. */
function _sameMatch(a: TrigramMatch, b: TrigramMatch): boolean {
  return a.indexes.length === b.indexes.length && a.indexes.every((index, i) => b.indexes[i] === index && a.parameters[`m_${index}`] === b.parameters[`m_${index}`]);
}

const INDEX_FAMILIES = new Map(SEARCH_TRIGRAM_INDEXES.map(({ name, families }) => [name, families]));
const DEFAULT_INDEX = SEARCH_TRIGRAM_INDEXES.find(({ name }) => name === "default")!;

/** The trigram indexes a search of the named families reads: `default` when it names all of its families, else each family's own. */
export function searchIndexesFor(named: readonly SearchKeyFamily[]): string[] {
  if (!DEFAULT_INDEX.families.every((family) => named.includes(family))) return [...named];
  return [DEFAULT_INDEX.name, ...named.filter((family) => !DEFAULT_INDEX.families.includes(family))];
}

/** Inserts `row` into `rows` (ascending by ord) at its place by ord. */
function _insertByOrd(rows: Array<Row<number>>, row: Row<number>): void {
  const at = rows.findIndex(([ord]) => ord > row[0]);
  rows.splice(at === -1 ? rows.length : at, 0, row);
}
