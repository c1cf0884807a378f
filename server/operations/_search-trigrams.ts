// Which trigrams a search pass asks each family's FTS5 index for, and the prepared statements a
// search index keeps. The snapshot never changes while served, so each trigram's counts are read
// once (a statement costs ~3 µs, and a query has about ten trigrams).
import type { SearchKeyFamily } from "../../snapshot/search-keys.ts";

/**
 * The rarest trigrams of a pass, at most this many, are ANDed: every candidate holds all of them.
 * More trigrams mean fewer candidates that fail the whole-text check, and one more doclist to
 * step through per candidate.
 */
const MAX_TRIGRAMS = 4;
/** Trigrams whose counts one search index keeps in memory (a 1M-record snapshot holds about 20,000). */
const TRIGRAM_CACHE_LIMIT = 50_000;
/** Prepared statements one search index keeps (each set of families, each budget and word count seen). */
const STATEMENT_CACHE_LIMIT = 512;

export interface TrigramMatch {
  /** The families that can hold a match: each holds every trigram of the texts. */
  families: SearchKeyFamily[];
  /** m_<family>: the FTS5 query of that family's rarest trigrams. */
  parameters: Record<string, string>;
}

export function candidateTrigrams(lookup: (trigram: string) => Array<{ type: SearchKeyFamily; documents: number }>) {
  const cache = new Map<string, Map<SearchKeyFamily, number>>();
  const counts = (trigram: string): Map<SearchKeyFamily, number> => {
    let byFamily = cache.get(trigram);
    if (byFamily === undefined) {
      byFamily = new Map(lookup(trigram).map((row) => [row.type, row.documents]));
      if (cache.size >= TRIGRAM_CACHE_LIMIT) cache.clear();
      cache.set(trigram, byFamily);
    }
    return byFamily;
  };
  return {
    /**
     * The trigrams of `texts` (of characters; a text under three characters has none), and for
     * each of `families` holding them all, the FTS5 query of its rarest; undefined when no family
     * can match or the texts have no trigram.
     */
    match(texts: readonly string[], families: readonly SearchKeyFamily[]): TrigramMatch | undefined {
      const trigrams = new Set(texts.flatMap(_trigramsOf));
      if (trigrams.size === 0) return undefined;
      const documents = [...trigrams].map((trigram) => [trigram, counts(trigram)] as const);
      const match: TrigramMatch = { families: [], parameters: {} };
      for (const family of families) {
        const held = documents.map(([trigram, byFamily]) => [trigram, byFamily.get(family) ?? 0] as const);
        // A trigram in none of the family's entities: none of them can match.
        if (held.some(([, count]) => count === 0)) continue;
        const rarest = held.sort((a, b) => a[1] - b[1]).slice(0, MAX_TRIGRAMS);
        match.families.push(family);
        match.parameters[`m_${family}`] = rarest.map(([trigram]) => `"${trigram.replaceAll('"', '""')}"`).join(" AND ");
      }
      return match.families.length === 0 ? undefined : match;
    },
  };
}

/**
 * A statement per set of families (at most 2^8 - 1) and values of the other parameters (the
 * literals in its text), prepared on first use. Such values are few in practice (a limit of 1-20,
 * the budget, the number of query words); the cache starts again when full.
 */
export function statementCache<S, P extends number[]>(
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

/** A string holding a surrogate pair: its code units are not its characters. */
const SURROGATE = /[\uD800-\uDFFF]/;

/** The distinct trigrams (of characters) of `text`. */
function _trigramsOf(text: string): string[] {
  const chars = SURROGATE.test(text) ? [...text] : undefined;
  const length = chars?.length ?? text.length;
  const trigrams: string[] = [];
  for (let i = 0; i + 3 <= length; i++) {
    trigrams.push(chars === undefined ? text.slice(i, i + 3) : chars.slice(i, i + 3).join(""));
  }
  return trigrams;
}
