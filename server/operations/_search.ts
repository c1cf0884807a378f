// The search index shared by entity search (1) and people search (2): exact, then prefix, then
// substring matches over search_keys, plus exact X handles through their keyed hash. Each family
// has its own key range and FTS index, so a search reads only the named families' candidates, and
// no search examines more than SEARCH_CANDIDATE_LIMIT of them (decision 21).
import type Database from "better-sqlite3";
import { z } from "zod";
import { SEARCH_KEY_FAMILIES, type SearchKeyFamily } from "../../compiler/snapshot-schema.ts";
import { handleSearchHash, normaliseHandle } from "../../compiler/x-ids.ts";

/** The six families of the spec: searched and echoed when a request names no `types`. */
export const defaultSearchFamilies = ["project", "fund", "person", "token", "stock", "x_account"] as const;
/** Every family, in the order `types` is echoed; news and events only when named (decision 25). */
export const searchFamilies = [...defaultSearchFamilies, "news", "event"] as const;
export type SearchFamily = (typeof searchFamilies)[number];
export interface SearchHit { type: SearchFamily; id: string }

/**
 * The most candidate keys (rows of search_keys, in key order over the named families) one search
 * examines. A match beyond them is not returned: docs/api.md, "Search", states the consequence.
 */
export const SEARCH_CANDIDATE_LIMIT = 1_000;

/** Trigram FTS cannot match fewer than 3 characters: 2-character queries get exact and prefix only. */
const SUBSTRING_MIN_CHARS = 3;
const HANDLE = /^@?[A-Za-z0-9_]{1,15}$/;
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

/** One candidate key of the key-range phase as a raw row: family, entity id, whether the key equals the query. */
type CandidateRow = [type: SearchKeyFamily, id: string, exact: number, sortKey: string];
/** One key of the substring phase that contains the query: rowid, family, entity id. */
type SubstringRow = [rowid: number, type: SearchKeyFamily, id: string];

export interface SearchIndex {
  /** Deterministic: match class, then key, then family, then id; each entity appears once. */
  search(text: string, families: ReadonlySet<SearchFamily>, limit: number): SearchHit[];
}

/**
 * `handleSearchKey` is the hex key of x_handle_index, derived from the compile secret (see
 * compiler/x-ids.ts); without it no X account is found by handle.
 */
export function createSearchIndex(
  snapshot: Database.Database,
  handleSearchKey: string | undefined,
  candidateLimit = SEARCH_CANDIDATE_LIMIT,
): SearchIndex {
  // One statement per phase over the named families (each a UNION ALL of one arm per family, merged
  // by SQLite in order as the rows are stepped): prepared the first time a set of families is searched.
  // Exact keys, then longer keys starting with the query, in (key, family, id) order, which is
  // rowid order (the compiler inserts the keys so): each arm reads its family's range from the
  // covering index search_keys_by_family alone, already in that order, so nothing is sorted.
  const keyRange = _statementsByFamilies((keyed) => snapshot.prepare<[{ key: string; upper: string }], CandidateRow>(
    `${keyed.map((family) => `
    SELECT entity_type, entity_id, key = @key, key AS sort_key FROM search_keys
    WHERE entity_type = '${family}' AND key >= @key AND key < @upper`).join("\n    UNION ALL")}
    ORDER BY sort_key, entity_type, entity_id`).raw());
  // Of the first `budget` keys (in rowid order) holding the query's two rarest trigrams in their
  // family (FTS5 intersects their doclists; parameter `m_<family>` names them), those that contain
  // the whole query: the same rows, in the same order, as a phrase query for the whole text, without
  // reading the doclists of common trigrams. The whole-text test runs in SQL: a candidate that fails
  // it never becomes a JavaScript row (each cost ~0.9 µs, most of a search of a common name). The
  // budget is a literal: a bound LIMIT made the plan slower (docs/performance.md).
  const substring = _statementsByFamilies((keyed, budget) => snapshot.prepare<[Record<string, string>], SubstringRow>(`
    SELECT rowid, entity_type, entity_id FROM (${keyed.map((family) => `
      SELECT f.rowid AS rowid, k.entity_type AS entity_type, k.entity_id AS entity_id, k.key AS key
      FROM search_fts_${family} f JOIN search_keys k ON k.rowid = f.rowid
      WHERE search_fts_${family} MATCH @m_${family}`).join("\n      UNION ALL")}
      ORDER BY rowid LIMIT ${budget})
    WHERE instr(key, @query) > 0`).raw());
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

  return {
    search(text, families, limit) {
      const key = text.trim().toLowerCase();
      const keyed = SEARCH_KEY_FAMILIES.filter((family) => families.has(family));
      const hits: SearchHit[] = [];
      const seen = new Set<string>();
      const add = (hit: SearchHit): boolean => {
        const id = `${hit.type}\u0000${hit.id}`;
        if (!seen.has(id)) {
          seen.add(id);
          hits.push({ type: hit.type, id: hit.id });
        }
        return hits.length >= limit;
      };
      let handleDone = !(families.has("x_account") && handleSearchKey !== undefined && HANDLE.test(key));
      /** An exact handle ranks after exact keys and before prefixes. */
      const addHandle = (): boolean => {
        handleDone = true;
        const id = handleIndex.get(handleSearchHash(handleSearchKey!, normaliseHandle(key)));
        return id !== undefined && add({ type: "x_account", id });
      };
      let examined = 0;
      // U+10FFFF sorts after every continuation of `key` in SQLite's binary (UTF-8) order.
      if (keyed.length > 0) {
        for (const [type, id, exact] of keyRange(keyed).iterate({ key, upper: key + "\u{10FFFF}" })) {
          if (++examined > candidateLimit) return hits;
          if (!exact && !handleDone && addHandle()) return hits;
          if (add({ type, id })) return hits;
        }
      }
      if (!handleDone && addHandle()) return hits;
      if ([...key].length < SUBSTRING_MIN_CHARS) return hits;
      const documents = _trigramDocuments(key, trigramCounts);
      const matches: Record<string, string> = { query: key };
      const searched = keyed.filter((family) => {
        const trigrams = _rarestTrigrams(documents, family);
        if (trigrams !== undefined) matches[`m_${family}`] = trigrams.map((t) => `"${t.replaceAll('"', '""')}"`).join(" AND ");
        return trigrams !== undefined;
      });
      if (searched.length === 0) return hits;
      for (const [, type, id] of substring(searched, candidateLimit - examined).iterate(matches)) {
        if (add({ type, id })) return hits;
      }
      return hits;
    },
  };
}

/**
 * A statement per set of families (at most 2^7 - 1) and candidate budget, prepared on first use.
 * Budgets are few in practice (the candidate limit less the handful of keys the key-range phase
 * examined); the cache starts again when full.
 */
function _statementsByFamilies<S>(prepare: (keyed: readonly SearchKeyFamily[], budget: number) => S): (keyed: readonly SearchKeyFamily[], budget?: number) => S {
  const statements = new Map<string, S>();
  return (keyed, budget = 0) => {
    const name = `${keyed.join(" ")}:${budget}`;
    let statement = statements.get(name);
    if (statement === undefined) {
      statement = prepare(keyed, budget);
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

/** How many of the query's rarest trigrams FTS5 intersects before the keys are read. */
const TRIGRAMS_INTERSECTED = 2;

/** For each distinct trigram of `key`, how many keys of each family hold it. */
function _trigramDocuments(
  key: string,
  lookup: (trigram: string) => Map<SearchKeyFamily, number>,
): Map<string, Map<SearchKeyFamily, number>> {
  const chars = [...key];
  const documents = new Map<string, Map<SearchKeyFamily, number>>();
  for (let i = 0; i + SUBSTRING_MIN_CHARS <= chars.length; i++) {
    const trigram = chars.slice(i, i + SUBSTRING_MIN_CHARS).join("");
    if (documents.has(trigram)) continue;
    const counts = lookup(trigram);
    // A trigram in no key at all: no key contains the query, whatever the other trigrams.
    if (counts.size === 0) return new Map([[trigram, counts]]);
    documents.set(trigram, counts);
  }
  return documents;
}

/**
 * The query's distinct trigrams held by the fewest keys of `family` (at most TRIGRAMS_INTERSECTED,
 * rarest first), or undefined when the query is too short for trigrams or one of its trigrams
 * occurs in no key of the family (then none of its keys contains the query).
 */
function _rarestTrigrams(documents: Map<string, Map<SearchKeyFamily, number>>, family: SearchKeyFamily): string[] | undefined {
  if (documents.size === 0) return undefined;
  const counts: Array<[string, number]> = [];
  for (const [trigram, byFamily] of documents) {
    const count = byFamily.get(family);
    if (count === undefined) return undefined;
    counts.push([trigram, count]);
  }
  return counts.sort((a, b) => a[1] - b[1]).slice(0, TRIGRAMS_INTERSECTED).map(([trigram]) => trigram);
}
