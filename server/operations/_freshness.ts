// Decision 14: a snapshot older than its bound (snapshot/freshness.ts) is never served, judged at
// request time.
import { asOfMs, freshnessBounds } from "../../snapshot/freshness.ts";

export type FreshnessBound = keyof typeof freshnessBounds;

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
