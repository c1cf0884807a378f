// `cei serve` warns on stderr before a loaded snapshot goes stale, and when it has: an operator
// who sees the first line has WARN_BEFORE_STALE_MS to publish a newer snapshot.
import { precomputedFreshness } from "../snapshot/freshness.ts";

export const WARN_BEFORE_STALE_MS = 10 * 60_000;
/** setTimeout's longest delay; later moments are reached in steps. */
const MAX_TIMER_MS = 2 ** 31 - 1;

/** The fields of a warning line: which precomputed snapshot, of which file, goes or went stale when. */
export interface StaleWarning {
  event: "snapshot_stale_soon" | "snapshot_stale";
  snapshot: string;
  precomputed: string;
  fresh_until: string;
}

interface Watched {
  contentHash: string;
  snapshots: Readonly<Record<string, string | null>>;
}

/** Logs now or schedules each warning of `snapshot`; returns the function that cancels them. */
export function watchFreshness(snapshot: Watched, now: () => number, log: (line: string, warning: StaleWarning) => void): () => void {
  const timers = new Set<NodeJS.Timeout>();
  const at = (moment: number, run: () => void): void => {
    const delay = moment - now();
    if (delay <= 0) return run();
    const timer = setTimeout(() => {
      timers.delete(timer);
      if (delay > MAX_TIMER_MS) at(moment, run);
      else run();
    }, Math.min(delay, MAX_TIMER_MS));
    timer.unref();
    timers.add(timer);
  };
  const label = `snapshot ${snapshot.contentHash}`;
  for (const [name, { fresh_until }] of Object.entries(precomputedFreshness(snapshot.snapshots))) {
    if (fresh_until === null) continue;
    const soon: StaleWarning = { event: "snapshot_stale_soon", snapshot: snapshot.contentHash, precomputed: name, fresh_until };
    const stale: StaleWarning = { ...soon, event: "snapshot_stale" };
    const until = Date.parse(fresh_until);
    if (now() >= until) {
      log(`cei serve: warning: ${label}: ${name} is stale since ${fresh_until}; its operations answer not-found or not-fresh errors`, stale);
      continue;
    }
    const warnAt = until - WARN_BEFORE_STALE_MS;
    if (now() < warnAt) {
      at(warnAt, () => log(`cei serve: warning: ${label}: ${name} goes stale at ${fresh_until} (in ${WARN_BEFORE_STALE_MS / 60_000} minutes); publish a newer snapshot`, soon));
    } else {
      log(`cei serve: warning: ${label}: ${name} goes stale at ${fresh_until}; publish a newer snapshot`, soon);
    }
    at(until, () => log(`cei serve: warning: ${label}: ${name} went stale at ${fresh_until}; its operations answer not-found or not-fresh errors`, stale));
  }
  return () => {
    for (const timer of timers) clearTimeout(timer);
    timers.clear();
  };
}
