// Which trigrams a search pass asks each trigram index for, and the prepared statements a search
// index keeps. The snapshot never changes while served, so each trigram's counts are read once (a
// statement costs ~3 µs, and a query has about ten trigrams).

/** At most this many trigrams of a pass are ANDed: every candidate holds all of them. */
const MAX_TRIGRAMS = 4;
/**
 * What examining one more candidate costs beside stepping through one more doclist entry: a
 * candidate (its row read at a random place and its text checked) cost 0.15-0.7 µs, more the
 * larger the snapshot, a doclist entry 13-20 ns, read in order (1M records, Node 24). A trigram is
 * worth ANDing only while its doclist is shorter than this many times the candidates it spares.
 */
const DOCLIST_ENTRIES_PER_CANDIDATE = 32;
/**
 * While the candidates may still outnumber the budget, matches beyond it would be missed: a
 * trigram is then read if the doclists chosen, its own included, hold at most this many times the
 * budget in all (64,000 entries, 0.5-1 ms of stepping at 1M). A trigram nearly every entity
 * holds, which spares almost nothing, is never read.
 */
const DOCLIST_ENTRIES_PER_BUDGET = 64;
/** Trigrams whose counts one search index keeps in memory (a 1M-record snapshot holds about 20,000). */
const TRIGRAM_CACHE_LIMIT = 50_000;
/** Prepared statements one search index keeps (each set of indexes, each budget and word count seen). */
const STATEMENT_CACHE_LIMIT = 512;

export interface TrigramMatch {
  /** The indexes that can hold a match: each holds every trigram of the texts. */
  indexes: string[];
  /** m_<index>: the FTS5 query of the trigrams chosen in that index. */
  parameters: Record<string, string>;
}

/**
 * `lookup` gives the number of each index's entities holding a trigram; the empty trigram gives
 * each index's size. `budget` is the most candidates a pass examines.
 */
export function candidateTrigrams(lookup: (trigram: string) => Array<{ index: string; documents: number }>, budget: number) {
  const cache = new Map<string, Map<string, number>>();
  const counts = (trigram: string): Map<string, number> => {
    let byIndex = cache.get(trigram);
    if (byIndex === undefined) {
      byIndex = new Map(lookup(trigram).map((row) => [row.index, row.documents]));
      if (cache.size >= TRIGRAM_CACHE_LIMIT) cache.clear();
      cache.set(trigram, byIndex);
    }
    return byIndex;
  };
  const sizes = counts("");
  return {
    /**
     * For each of `indexes` holding every trigram of `texts` (of characters; a text under three
     * characters has none), the FTS5 query of the trigrams worth reading; undefined when no index
     * can match or the texts have no trigram.
     *
     * The choice, per index: first each text's rarest trigram, rarest text first (trigrams of one
     * word occur together, those of different words much less so), then the others, rarest first.
     * The first is always read; each further one only while its doclist is short enough to pay:
     * at most DOCLIST_ENTRIES_PER_CANDIDATE times the candidates estimated so far, or, while they
     * may outnumber the budget, DOCLIST_ENTRIES_PER_BUDGET times the budget. A trigram most
     * entities hold is never stepped through.
     */
    match(texts: readonly string[], indexes: readonly string[]): TrigramMatch | undefined {
      const perText = texts.map((text, word) => _trigramsOf(text).map(({ trigram, at }) => ({ trigram, word, at, byIndex: counts(trigram) })))
        .filter((trigrams) => trigrams.length > 0);
      if (perText.length === 0) return undefined;
      const match: TrigramMatch = { indexes: [], parameters: {} };
      for (const index of indexes) {
        const counted = _counted(perText, index);
        if (counted === undefined) continue;
        const chosen = _choose(counted, sizes.get(index) ?? 0, budget);
        match.indexes.push(index);
        // In code-unit order: the same trigrams make the same query, whichever came first.
        match.parameters[`m_${index}`] = chosen.sort().map((trigram) => `"${trigram.replaceAll('"', '""')}"`).join(" AND ");
      }
      return match.indexes.length === 0 ? undefined : match;
    },
  };
}

/** A trigram of a pass's text `word`, at character `at`, held by `documents` of an index's entities. */
interface Counted { trigram: string; word: number; at: number; documents: number }

/**
 * Each text's trigrams with their documents in `index`, rarest first; undefined when one of them is
 * in none of its entities (the index cannot match).
 */
function _counted(texts: ReadonlyArray<ReadonlyArray<{ trigram: string; word: number; at: number; byIndex: Map<string, number> }>>, index: string): Counted[][] | undefined {
  const counted: Counted[][] = [];
  for (const trigrams of texts) {
    const list: Counted[] = [];
    for (const { trigram, word, at, byIndex } of trigrams) {
      const documents = byIndex.get(index) ?? 0;
      if (documents === 0) return undefined;
      list.push({ trigram, word, at, documents });
    }
    counted.push(list.sort(_byRarity));
  }
  return counted;
}

const _byRarity = (a: Counted, b: Counted) => a.documents - b.documents;

/**
 * The trigrams to AND in one index of `size` entities (see `match`), from each text's trigrams,
 * rarest first. The candidates are estimated as the first trigram's documents times each further
 * trigram's share of the index: its whole share when it shares no character with a trigram already
 * chosen from its text (different words, or distant parts of one, occur nearly independently), the
 * square root of it when it overlaps one (`feb` then `eba`: both hold `eb`).
 */
function _choose(texts: readonly Counted[][], size: number, budget: number): string[] {
  const firsts: Counted[] = [];
  const others: Counted[] = [];
  for (const trigrams of texts) {
    firsts.push(trigrams[0]!);
    for (let i = 1; i < trigrams.length; i++) others.push(trigrams[i]!);
  }
  firsts.sort(_byRarity);
  others.sort(_byRarity);
  const chosen: Counted[] = [];
  let estimate = firsts[0]!.documents;
  let entries = 0;
  for (const list of [firsts, others]) {
    for (const candidate of list) {
      if (chosen.length >= MAX_TRIGRAMS) break;
      let overlaps = false;
      let repeated = false;
      for (const { trigram, word, at } of chosen) {
        if (trigram === candidate.trigram) repeated = true;
        if (word === candidate.word && Math.abs(at - candidate.at) < 3) overlaps = true;
      }
      if (repeated) continue;
      const share = size > 0 ? Math.min(1, candidate.documents / size) : 1;
      const after = estimate * (overlaps ? Math.sqrt(share) : share);
      const worth = chosen.length === 0
        || (estimate > budget
          ? entries + candidate.documents <= DOCLIST_ENTRIES_PER_BUDGET * budget
          : candidate.documents < DOCLIST_ENTRIES_PER_CANDIDATE * (estimate - after));
      if (!worth) continue;
      chosen.push(candidate);
      entries += candidate.documents;
      if (chosen.length > 1) estimate = after;
    }
  }
  return chosen.map(({ trigram }) => trigram);
}

/**
 * A statement per set of indexes and values of the other parameters (the literals in its text),
 * prepared on first use. Such values are few in practice (a limit of 1-20, the budget, the number
 * of query words); the cache starts again when full.
 */
export function statementCache<N extends string, S, P extends number[]>(
  prepare: (names: readonly N[], ...parameters: P) => S,
): (names: readonly N[], ...parameters: P) => S {
  const statements = new Map<string, S>();
  return (names, ...parameters) => {
    const name = `${names.join(" ")}:${parameters.join(":")}`;
    let statement = statements.get(name);
    if (statement === undefined) {
      statement = prepare(names, ...parameters);
      if (statements.size >= STATEMENT_CACHE_LIMIT) statements.clear();
      statements.set(name, statement);
    }
    return statement;
  };
}

/** A string holding a surrogate pair: its code units are not its characters. */
const SURROGATE = /[\uD800-\uDFFF]/;

/** The distinct trigrams (of characters) of `text`, each at its first character. */
function _trigramsOf(text: string): Array<{ trigram: string; at: number }> {
  const chars = SURROGATE.test(text) ? [...text] : undefined;
  const length = chars?.length ?? text.length;
  const trigrams = new Map<string, number>();
  for (let i = 0; i + 3 <= length; i++) {
    const trigram = chars === undefined ? text.slice(i, i + 3) : chars.slice(i, i + 3).join("");
    if (!trigrams.has(trigram)) trigrams.set(trigram, i);
  }
  return [...trigrams].map(([trigram, at]) => ({ trigram, at }));
}
