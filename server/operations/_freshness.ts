// Decision 14: a snapshot older than its bound (snapshot/freshness.ts) is never served, judged at
// request time.
import type Database from "better-sqlite3";
import { asOfMs, freshnessBounds } from "../../snapshot/freshness.ts";

export type FreshnessBound = keyof typeof freshnessBounds;

/**
 * How many source records carry `name` (the manifest's `curated`, decision 28): 0 when the sources
 * never curated it. Read once, when an operation is prepared.
 */
export function curatedCount(snapshot: Database.Database, name: string): number {
  const row = snapshot.prepare<[], { value: string }>("SELECT value FROM manifest WHERE key = 'curated'").get();
  const curated = row === undefined ? {} : (JSON.parse(row.value) as Record<string, number>);
  return curated[name] ?? 0;
}

/** `asOf` is an ISO date-time, or a date (read as its start, 00:00 UTC). Missing data is not fresh. */
export function isFresh(asOf: string | null | undefined, bound: FreshnessBound, now: number): boolean {
  if (asOf == null) return false;
  const at = asOfMs(asOf);
  return Number.isFinite(at) && now - at <= freshnessBounds[bound];
}

/** The last instant (ms) at which data of `asOf` may be served, computed once per snapshot; -Infinity when missing. */
export function freshUntil(asOf: string | null | undefined, bound: FreshnessBound): number {
  if (asOf == null) return -Infinity;
  const at = asOfMs(asOf);
  return Number.isFinite(at) ? at + freshnessBounds[bound] : -Infinity;
}
