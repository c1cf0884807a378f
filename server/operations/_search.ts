// The search index shared by entity search (1) and people search (2): exact, then prefix, then
// substring matches over search_keys, plus exact X handles through their keyed hash.
import type Database from "better-sqlite3";
import { z } from "zod";
import { handleSearchHash, normaliseHandle } from "../../compiler/x-ids.ts";

export const searchFamilies = ["project", "fund", "person", "token", "stock", "x_account"] as const;
export type SearchFamily = (typeof searchFamilies)[number];
export interface SearchHit { type: SearchFamily; id: string }

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

interface KeyRow { type: SearchFamily; id: string }

export interface SearchIndex {
  /** Deterministic: match class, then key, then family, then id; each entity appears once. */
  search(text: string, families: ReadonlySet<SearchFamily>, limit: number): SearchHit[];
}

export function createSearchIndex(snapshot: Database.Database): SearchIndex {
  const typesParam = (families: ReadonlySet<SearchFamily>) => JSON.stringify([...families]);
  const exact = snapshot.prepare<[{ key: string; types: string }], KeyRow>(`
    SELECT entity_type AS type, entity_id AS id FROM search_keys
    WHERE key = @key AND entity_type IN (SELECT value FROM json_each(@types))
    ORDER BY entity_type, entity_id`);
  const prefix = snapshot.prepare<[{ key: string; upper: string; types: string }], KeyRow>(`
    SELECT entity_type AS type, entity_id AS id FROM search_keys
    WHERE key > @key AND key < @upper AND entity_type IN (SELECT value FROM json_each(@types))
    ORDER BY key, entity_type, entity_id`);
  // Keys holding the query's two rarest trigrams (FTS5 intersects their doclists), in rowid (= key)
  // order, kept if they contain the whole query: the same rows, in the same order, as an FTS phrase
  // query for the whole query, without reading the (large) doclists of its common trigrams.
  const substring = snapshot.prepare<[{ match: string; query: string; types: string }], KeyRow>(`
    SELECT k.entity_type AS type, k.entity_id AS id
    FROM search_fts JOIN search_keys k ON k.rowid = search_fts.rowid
    WHERE search_fts MATCH @match AND instr(k.key, @query) > 0
      AND k.entity_type IN (SELECT value FROM json_each(@types))
    ORDER BY search_fts.rowid`);
  const trigramDocuments = snapshot.prepare<[string], number>("SELECT documents FROM search_trigrams WHERE trigram = ?").pluck();
  const handleIndex = snapshot.prepare<[string], string>("SELECT x_account_id FROM x_handle_index WHERE handle_hash = ?").pluck();
  const searchKeyJson = snapshot.prepare<[], string>("SELECT value FROM manifest WHERE key = 'x_handle_search_key'").pluck().get();
  const handleSearchKey = searchKeyJson === undefined ? undefined : ((JSON.parse(searchKeyJson) as string | null) ?? undefined);

  return {
    search(text, families, limit) {
      const key = text.trim().toLowerCase();
      const types = typesParam(families);
      const hits: SearchHit[] = [];
      const seen = new Set<string>();
      const add = (row: KeyRow): boolean => {
        const id = `${row.type}\u0000${row.id}`;
        if (!seen.has(id)) {
          seen.add(id);
          hits.push({ type: row.type, id: row.id });
        }
        return hits.length >= limit;
      };
      for (const row of exact.iterate({ key, types })) if (add(row)) return hits;
      if (families.has("x_account") && handleSearchKey !== undefined && HANDLE.test(key)) {
        const id = handleIndex.get(handleSearchHash(handleSearchKey, normaliseHandle(key)));
        if (id !== undefined && add({ type: "x_account", id })) return hits;
      }
      // U+10FFFF sorts after every continuation of `key` in SQLite's binary (UTF-8) order.
      for (const row of prefix.iterate({ key, upper: key + "\u{10FFFF}", types })) if (add(row)) return hits;
      const trigrams = _rarestTrigrams(key, (t) => trigramDocuments.get(t) ?? 0);
      if (trigrams !== undefined) {
        const match = trigrams.map((t) => `"${t.replaceAll('"', '""')}"`).join(" AND ");
        for (const row of substring.iterate({ match, query: key, types })) if (add(row)) return hits;
      }
      return hits;
    },
  };
}

/** How many of the query's rarest trigrams FTS5 intersects before the keys are read. */
const TRIGRAMS_INTERSECTED = 2;

/**
 * The distinct trigrams of `key` held by the fewest keys (at most TRIGRAMS_INTERSECTED, rarest
 * first), or undefined when `key` is too short for trigrams or one of its trigrams occurs nowhere
 * (then no key contains `key`).
 */
function _rarestTrigrams(key: string, documents: (trigram: string) => number): string[] | undefined {
  const chars = [...key];
  const counts = new Map<string, number>();
  for (let i = 0; i + SUBSTRING_MIN_CHARS <= chars.length; i++) {
    const trigram = chars.slice(i, i + SUBSTRING_MIN_CHARS).join("");
    if (counts.has(trigram)) continue;
    const count = documents(trigram);
    if (count === 0) return undefined;
    counts.set(trigram, count);
  }
  if (counts.size === 0) return undefined;
  return [...counts].sort((a, b) => a[1] - b[1]).slice(0, TRIGRAMS_INTERSECTED).map(([trigram]) => trigram);
}
