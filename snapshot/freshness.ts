// How old each precomputed snapshot of a compiled file may be, and so until when it may be served:
// its as_of plus its bound (decision 14). The compiler excludes observations older than the same
// bounds (compiler/policy.ts) and refuses a compile whose snapshots would already be stale. Read by
// readiness, by `cei inspect` and by the stale warnings of `cei serve`; the operations judge each
// request with the same bounds (server/operations/_freshness.ts).

const HOUR = 3_600_000;
const DAY = 24 * HOUR;

/**
 * How old a snapshot may be when a request is served (decision 14), measured from its as_of
 * to the server's current time. Older data is never served.
 */
export const freshnessBounds = {
  trending_live: 2 * HOUR,
  trending_projects: DAY,
  narrative_rankings: DAY,
  market: 6 * HOUR,
  fund_rankings: 30 * DAY,
  project_tvl: 2 * DAY,
  tokenomics: 180 * DAY,
} as const;

export interface PrecomputedFreshness {
  as_of: string | null;
  /** as_of plus the bound; null when the snapshot has no as_of or no bound (stock rankings). */
  fresh_until: string | null;
}

/** An ISO date-time, or a date read as its start (00:00 UTC); NaN when neither. */
export function asOfMs(asOf: string): number {
  return Date.parse(asOf.length === 10 ? `${asOf}T00:00:00.000Z` : asOf);
}

function _bound(name: string): number | undefined {
  return Object.hasOwn(freshnessBounds, name) ? freshnessBounds[name as keyof typeof freshnessBounds] : undefined;
}

/** A snapshot without a bound (stock rankings) is always served; one with a bound, until fresh_until. */
export function isServable(name: string, freshness: PrecomputedFreshness, now: number): boolean {
  if (_bound(name) === undefined) return true;
  return freshness.fresh_until !== null && now <= Date.parse(freshness.fresh_until);
}

/** `snapshots` is the manifest's map of precomputed snapshot name to as_of. */
export function precomputedFreshness(snapshots: Readonly<Record<string, string | null>>): Record<string, PrecomputedFreshness> {
  const result: Record<string, PrecomputedFreshness> = {};
  for (const name of Object.keys(snapshots).sort()) {
    const asOf = snapshots[name] ?? null;
    const bound = _bound(name);
    const at = asOf === null ? NaN : asOfMs(asOf);
    result[name] = { as_of: asOf, fresh_until: bound === undefined || !Number.isFinite(at) ? null : new Date(at + bound).toISOString() };
  }
  return result;
}
