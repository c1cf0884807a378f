// The search index shared by entity search (1) and people search (2): exact, then prefix, then
// substring matches over search_keys, plus exact X handles through their keyed hash and the
// exact-only keys (token contract addresses, decision 33) of search_exact_keys. Each family
// has its own key range and FTS index, so a search reads only the named families' candidates, and
// no search examines more than SEARCH_CANDIDATE_LIMIT of them (decision 21).
import type Database from "better-sqlite3";
import { z } from "zod";
import {
  exactSearchKey, exactSearchKeyColumns, SEARCH_KEY_FAMILIES, SEARCH_KEY_TABLES, SEARCH_KEYS_PER_ENTITY, type SearchKeyFamily,
} from "../../snapshot/search-keys.ts";
import { handleSearchHash, normaliseHandle } from "../../snapshot/x-ids.ts";

/** The six families of the spec: searched and echoed when a request names no `types`. */
export const defaultSearchFamilies = ["project", "fund", "person", "token", "stock", "x_account"] as const;
/** Every family, in the order `types` is echoed; news and events only when named (decision 25). */
export const searchFamilies = [...defaultSearchFamilies, "news", "event"] as const;
export type SearchFamily = (typeof searchFamilies)[number];
/**
 * What a search returns for each hit: its entry, ready to send. A key family's entry is a JSON
 * expression over one row of the family's table (SEARCH_KEY_TABLES: the row whose `id` the key
 * names); an X account found by its exact handle gets `handle(id)`. Every entry must name its
 * entity (its family and id): a search returns each entry once. The search's own statements
 * compute the entries of the rows it returns, instead of a statement per hit after the search
 * (~1 µs each, and a column of a row costs ~0.15 µs in better-sqlite3, measured in-process).
 */
export interface SearchEntries {
  families: Partial<Record<SearchKeyFamily, string>>;
  handle?: (xAccountId: string) => string;
}

/**
 * The most candidate keys (rows of search_keys, in key order over the named families) one search
 * examines. A match beyond them is not returned: docs/api.md, "Search", states the consequence.
 */
export const SEARCH_CANDIDATE_LIMIT = 1_000;

/** Trigram FTS cannot match fewer than 3 characters: 2-character queries get exact and prefix only. */
const SUBSTRING_MIN_CHARS = 3;
const HANDLE = /^@?[A-Za-z0-9_]{1,15}$/;
const WHITESPACE = /\s/;
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

/** One candidate key of the key-range phase as a raw row: whether the key equals the query, the entry. */
type CandidateRow = [exact: number, entry: string | null];

export interface SearchIndex {
  /** The hits' entries. Deterministic: match class, then key, then family, then id; each entity appears once. */
  search(text: string, families: ReadonlySet<SearchFamily>, limit: number): string[];
}

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
  // Each hit's entry, computed for the rows a phase returns only (each arm also reads one row ahead
  // that may never be returned): outside the merged arms, as one CASE over the family.
  const entry = (keyed: readonly SearchKeyFamily[]): string =>
    `CASE c.entity_type ${keyed.map((family) =>
      `WHEN '${family}' THEN (SELECT ${entries.families[family]!} FROM ${SEARCH_KEY_TABLES[family]} WHERE id = c.entity_id)`).join(" ")} END`;
  // The key-range phase: exact keys, then longer keys starting with the query, in (key, family, id)
  // order, which is rowid order (the compiler inserts the keys so). One UNION ALL of one arm per
  // named family, merged by SQLite in order: each arm reads its family's range from the covering
  // index search_keys_by_family alone, already in that order, so nothing is sorted. Read as whole
  // chunks of `size` rows from `offset` (literals: a bound LIMIT made the plan slower), each row its
  // entry alone, or [exact, entry] while an X handle waits for the end of the exact keys: a row
  // stepped from JavaScript costs ~0.3 µs more than one of `all()`, and each further column ~0.15-0.3 µs.
  const keyRange = _statements((keyed, exact: boolean, size: number, offset: number) => {
    const sql = `
      SELECT ${exact ? "c.exact, " : ""}${entry(keyed)} FROM (${keyed.map((family) => `
        SELECT entity_type, entity_id, ${exact ? "key = @key AS exact, " : ""}key AS sort_key FROM search_keys
        WHERE entity_type = '${family}' AND key >= @key AND key < @upper`).join("\n        UNION ALL")}
        ORDER BY sort_key, entity_type, entity_id LIMIT ${size} OFFSET ${offset}) AS c`;
    const statement = snapshot.prepare<[{ key: string; upper: string }], CandidateRow | string | null>(sql);
    return exact ? statement.raw() : statement.pluck();
  });
  // Of the first `budget` keys (in rowid order) holding the query's two rarest trigrams in their
  // family (FTS5 intersects their doclists; parameter `m_<family>` names them), those that contain
  // the whole query: the same rows, in the same order, as a phrase query for the whole text, without
  // reading the doclists of common trigrams. The whole-text test runs in SQL: a candidate that fails
  // it never becomes a JavaScript row (each cost ~0.9 µs, most of a search of a common name). The
  // budget is a literal: a bound LIMIT made the plan slower (docs/performance.md).
  const substring = _statements((keyed, budget: number) => snapshot.prepare<[Record<string, string>], string | null>(`
    SELECT ${entry(keyed)} FROM (${keyed.map((family) => `
      SELECT f.rowid AS rowid, k.entity_type AS entity_type, k.entity_id AS entity_id, k.key AS key
      FROM search_fts_${family} f JOIN search_keys k ON k.rowid = f.rowid
      WHERE search_fts_${family} MATCH @m_${family}`).join("\n      UNION ALL")}
      ORDER BY rowid LIMIT ${budget}) AS c
    WHERE instr(c.key, @query) > 0`).pluck());
  const trigramDocuments = snapshot.prepare<[string], { type: SearchKeyFamily; documents: number }>(
    "SELECT entity_type AS type, documents FROM search_trigrams WHERE trigram = ?",
  );
  // The snapshot never changes while served, so each trigram's counts are read once (a statement
  // costs ~3 µs, and a name has about ten trigrams); the cache starts again when full.
  const trigramCache = new Map<string, Map<SearchKeyFamily, number>>();
  const trigramCounts = (trigram: string): Map<SearchKeyFamily, number> => {
    let counts = trigramCache.get(trigram);
    if (counts === undefined) {
      counts = new Map(trigramDocuments.all(trigram).map((row) => [row.type, row.documents]));
      if (trigramCache.size >= TRIGRAM_CACHE_LIMIT) trigramCache.clear();
      trigramCache.set(trigram, counts);
    }
    return counts;
  };
  const handleIndex = snapshot.prepare<[string], string>("SELECT x_account_id FROM x_handle_index WHERE handle_hash = ?").pluck();
  // The exact-only keys of the named families that have them, in (family, id) order.
  const exactOnly = _statements((keyed) => snapshot.prepare<[string], string | null>(`
    SELECT ${entry(keyed)} FROM search_exact_keys c
    WHERE c.key = ? AND c.entity_type IN (${keyed.map((family) => `'${family}'`).join(", ")})
    ORDER BY c.entity_type, c.entity_id`).pluck());
  // The lengths of the exact-only keys (ASCII: every address rule allows only ASCII, so SQLite's
  // length is JavaScript's): a query of another length cannot equal one, so most searches skip
  // the lookup, and the flag on each key-range row that marks where the exact keys end.
  const exactKeyLengths = new Set(snapshot.prepare<[], number>("SELECT DISTINCT length(key) FROM search_exact_keys").pluck().all());

  return {
    search(text, families, limit) {
      const key = text.trim().toLowerCase();
      const keyed = SEARCH_KEY_FAMILIES.filter((family) => families.has(family) && entries.families[family] !== undefined);
      // Entries in the order found, each once (an entry names its entity).
      const hits = new Set<string>();
      const add = (entry: string | null): boolean => {
        // No entry: a key whose row is not in its table, which the compiler never writes.
        if (entry !== null) hits.add(entry);
        return hits.size >= limit;
      };
      const { handle } = entries;
      const searchHandle = families.has("x_account") && handle !== undefined && handleSearchKey !== undefined && HANDLE.test(key);
      // Exact-only keys are compared with the query as sent (trimmed), not lower-cased: only an EVM
      // address is compared whatever its case (exactSearchKey). None holds a space.
      const sent = text.trim();
      const exactKeyed = !exactKeyLengths.has(sent.length) || WHITESPACE.test(sent) ? [] : keyed.filter((family) => exactSearchKeyColumns[family] !== undefined);
      let exactExtrasDone = !searchHandle && exactKeyed.length === 0;
      /** An exact handle, then the exact-only keys, rank after exact keys and before prefixes. */
      const addExactExtras = (): boolean => {
        exactExtrasDone = true;
        if (searchHandle) {
          const id = handleIndex.get(handleSearchHash(handleSearchKey!, normaliseHandle(key)));
          if (id !== undefined && add(handle!(id))) return true;
        }
        if (exactKeyed.length === 0) return false;
        for (const entry of exactOnly(exactKeyed).all(exactSearchKey(sent))) if (add(entry)) return true;
        return false;
      };
      let examined = 0;
      if (keyed.length > 0) {
        // U+10FFFF sorts after every continuation of `key` in SQLite's binary (UTF-8) order.
        const range = { key, upper: key + "\u{10FFFF}" };
        // A family gives an entity at most SEARCH_KEYS_PER_ENTITY keys, so the first `limit` entities
        // found are among that many times `limit` rows: the limit's worth first, in one call (most
        // ranges hold one key per entity), then the rest stepped one by one, so that no entry is
        // made past the last entity needed. One more row than the candidate limit tells whether the
        // range holds more than it.
        const rows = Math.min(SEARCH_KEYS_PER_ENTITY * limit, candidateLimit + 1);
        const first = Math.min(limit, rows);
        let exactFirst = !exactExtrasDone;
        /** Takes one row; true when the search is over. */
        const take = (row: CandidateRow | string | null): boolean => {
          if (++examined > candidateLimit) return true;
          if (!exactFirst) return add(row as string | null);
          const [exact, entry] = row as CandidateRow;
          return (!exact && !exactExtrasDone && addExactExtras()) || add(entry);
        };
        const chunk = keyRange(keyed, exactFirst, first, 0).all(range);
        for (const row of chunk) if (take(row)) return [...hits];
        if (chunk.length === first && rows > first) {
          exactFirst = !exactExtrasDone;
          for (const row of keyRange(keyed, exactFirst, rows - first, first).iterate(range)) if (take(row)) return [...hits];
        }
      }
      if (!exactExtrasDone && addExactExtras()) return [...hits];
      // Fewer than three code units are fewer than three characters: no trigram (nor is there one
      // in a text of more code units but fewer characters; _trigramDocuments counts characters).
      if (key.length < SUBSTRING_MIN_CHARS) return [...hits];
      const documents = _trigramDocuments(key, trigramCounts);
      const matches: Record<string, string> = { query: key };
      const searched = keyed.filter((family) => {
        const match = _rarestTrigrams(documents, family);
        if (match !== undefined) matches[`m_${family}`] = match;
        return match !== undefined;
      });
      if (searched.length === 0) return [...hits];
      for (const entry of substring(searched, candidateLimit - examined).iterate(matches)) {
        if (add(entry)) break;
      }
      return [...hits];
    },
  };
}

/**
 * A statement per set of families (at most 2^7 - 1) and values of the other parameters (the
 * literals in its text), prepared on first use. Such values are few in practice (chunks of a
 * limit of 1-20; a substring budget is the candidate limit less the handful of keys the key-range
 * phase examined); the cache starts again when full.
 */
function _statements<S, P extends Array<number | boolean>>(
  prepare: (keyed: readonly SearchKeyFamily[], ...parameters: P) => S,
): (keyed: readonly SearchKeyFamily[], ...parameters: P) => S {
  const statements = new Map<string, S>();
  return (keyed, ...parameters) => {
    const name = `${keyed.join(" ")}:${parameters.join(":")}`;
    let statement = statements.get(name);
    if (statement === undefined) {
      statement = prepare(keyed, ...parameters);
      if (statements.size >= STATEMENT_CACHE_LIMIT) statements.clear();
      statements.set(name, statement);
    }
    return statement;
  };
}

/** Prepared search statements one search index keeps (each set of families, each budget seen). */
const STATEMENT_CACHE_LIMIT = 512;

/** Trigrams whose key counts one search index keeps in memory (a 1M-record snapshot holds about 20,000). */
const TRIGRAM_CACHE_LIMIT = 50_000;

/** A string holding a surrogate pair: its code units are not its characters. */
const SURROGATE = /[\uD800-\uDFFF]/;

/** For each distinct trigram (of characters) of `key`, how many keys of each family hold it. */
function _trigramDocuments(
  key: string,
  lookup: (trigram: string) => Map<SearchKeyFamily, number>,
): Map<string, Map<SearchKeyFamily, number>> {
  // Without surrogates, each code unit is a character and a slice of the string is a trigram.
  const chars = SURROGATE.test(key) ? [...key] : undefined;
  const length = chars?.length ?? key.length;
  const documents = new Map<string, Map<SearchKeyFamily, number>>();
  for (let i = 0; i + SUBSTRING_MIN_CHARS <= length; i++) {
    const trigram = chars === undefined ? key.slice(i, i + SUBSTRING_MIN_CHARS) : chars.slice(i, i + SUBSTRING_MIN_CHARS).join("");
    if (documents.has(trigram)) continue;
    const counts = lookup(trigram);
    // A trigram in no key at all: no key contains the query, whatever the other trigrams.
    if (counts.size === 0) return new Map([[trigram, counts]]);
    documents.set(trigram, counts);
  }
  return documents;
}

/**
 * The FTS5 query for the two distinct trigrams of the query held by the fewest keys of `family`
 * (the earlier one in the query on a tie), or undefined when the query is too short for trigrams
 * or one of its trigrams occurs in no key of the family (then none of its keys contains the query).
 * FTS5 intersects their doclists before any key is read.
 */
function _rarestTrigrams(documents: Map<string, Map<SearchKeyFamily, number>>, family: SearchKeyFamily): string | undefined {
  let rarest: string | undefined;
  let next: string | undefined;
  let rarestCount = Infinity;
  let nextCount = Infinity;
  for (const [trigram, byFamily] of documents) {
    const count = byFamily.get(family);
    if (count === undefined) return undefined;
    if (count < rarestCount) {
      [next, nextCount, rarest, rarestCount] = [rarest, rarestCount, trigram, count];
    } else if (count < nextCount) {
      [next, nextCount] = [trigram, count];
    }
  }
  if (rarest === undefined) return undefined;
  const phrase = (trigram: string) => `"${trigram.replaceAll('"', '""')}"`;
  return next === undefined ? phrase(rarest) : `${phrase(rarest)} AND ${phrase(next)}`;
}
