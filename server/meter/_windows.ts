// Rate windows as both meters report them: fixed windows aligned to the epoch, so every reader
// computes the same window for the same instant, whichever process or machine it runs on.
import { RATE_WINDOW_MS, tierRateLimits, type Tier } from "../policy.ts";
import type { Admission, RateLimitInfo } from "./interface.ts";

const WINDOW_SECONDS = RATE_WINDOW_MS / 1000;

export interface StoredWindow { window_start: number; request_count: number }

/** Fixed windows aligned to the epoch: every process computes the same window for the same instant. */
export function windowStartOf(now: number): number {
  return Math.floor(now / RATE_WINDOW_MS) * RATE_WINDOW_MS;
}

export function rateLimitInfo(tier: Tier, windowStart: number, used: number): RateLimitInfo {
  const limit = tierRateLimits[tier];
  return {
    limit,
    remaining: Math.max(0, limit - used),
    reset_at: _resetAt(windowStart),
    tier,
  };
}

/** Every request of a window reports the same reset_at: formatted once per window, not per request. */
let lastWindowStart = Number.NaN;
let lastResetAt = "";
function _resetAt(windowStart: number): string {
  if (windowStart !== lastWindowStart) {
    lastResetAt = new Date(windowStart + RATE_WINDOW_MS).toISOString();
    lastWindowStart = windowStart;
  }
  return lastResetAt;
}

/** A stored window more than one window ahead (another process's clock jumped) counts as the current one. */
export function peekWindow(row: StoredWindow | undefined, tier: Tier, now: number): RateLimitInfo {
  const start = windowStartOf(now);
  if (row === undefined || row.window_start < start) return rateLimitInfo(tier, start, 0);
  if (row.window_start > start + RATE_WINDOW_MS) return rateLimitInfo(tier, start, row.request_count);
  return rateLimitInfo(tier, row.window_start, row.request_count);
}

/** The admission of a request just counted in `window`: admitted, or rate limited with Retry-After. */
export function admissionOf(tier: Tier, window: StoredWindow, credits: number, now: number): Admission {
  const admission: Admission = { result: "admitted", credits_remaining: credits, rate_limit: rateLimitInfo(tier, window.window_start, window.request_count) };
  if (window.request_count > tierRateLimits[tier]) {
    admission.result = "rate_limited";
    const seconds = Math.ceil((window.window_start + RATE_WINDOW_MS - now) / 1000);
    admission.retry_after_s = Math.min(WINDOW_SECONDS, Math.max(1, seconds));
  }
  return admission;
}
