// Ranked lists fixed by the snapshot (rankings, trending, top movers), serialised when the snapshot
// is loaded: each entry's JSON is kept split around its response-local rank, so that a request only
// filters, numbers and concatenates (measured: docs/performance.md). The lists are bounded (at most 30 entries, or 20 per
// trending day), so holding them costs the server nothing worth measuring.

const RANK_KEY = '"rank":';

/** One entry's JSON before and after the value of its `rank`. */
export interface RankedEntry {
  head: string;
  tail: string;
}

/**
 * `row` serialised with its fields in their order and rank 0, split around the rank. Every ranked
 * entry starts with its `type` literal and then `rank`, so no value of the data can come first.
 */
export function rankedEntry<T extends { type: string; rank: number }>(row: T): RankedEntry {
  const json = JSON.stringify({ ...row, rank: 0 });
  const at = json.indexOf(`${RANK_KEY}0`);
  if (at === -1 || at > json.indexOf(",") + 1) throw new Error(`a ranked entry must hold type then rank: ${json}`);
  return { head: json.slice(0, at + RANK_KEY.length), tail: json.slice(at + RANK_KEY.length + 1) };
}

/** The JSON array of the first `limit` entries that `keep` accepts, ranked 1..n in their order. */
export function rankedJson<T extends RankedEntry>(entries: readonly T[], limit: number, keep?: (entry: T) => boolean): string {
  let json = "[";
  let rank = 0;
  for (const entry of entries) {
    if (rank === limit) break;
    if (keep !== undefined && !keep(entry)) continue;
    rank++;
    json += (rank === 1 ? "" : ",") + entry.head + rank + entry.tail;
  }
  return json + "]";
}
