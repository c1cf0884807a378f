// One assertion for the whole metering surface of a response: status, error code, meta and the
// headers that must agree with it (decisions 4, 11 and 12, and the API spec's header table).
import { expect } from "vitest";
import { REQUEST_ID } from "../_support/server.ts";
import type { HttpResult } from "./_http.ts";

export interface ExpectedRateLimit { limit: number; remaining: number; reset_at: string; tier: string }

export interface ExpectedMetering {
  status: number;
  /** The error code; omitted for a 200. */
  code?: string;
  credits_used: number;
  /** Omitted when the key is not known (401): then neither meta nor headers may carry it. */
  credits_remaining?: number;
  rate_limit?: ExpectedRateLimit;
  /** Only on 429. */
  retry_after?: string;
}

/** `now` is the server's clock when it answered (for the RateLimit header's `t`). */
export function expectMetering(res: HttpResult, expected: ExpectedMetering, now: number): void {
  const meta: Record<string, unknown> = { request_id: res.body?.meta?.request_id, credits_used: expected.credits_used };
  if (expected.credits_remaining !== undefined) meta.credits_remaining = expected.credits_remaining;
  if (expected.rate_limit !== undefined) meta.rate_limit = expected.rate_limit;
  const rate = expected.rate_limit;
  const headers = {
    "cache-control": "no-store",
    "x-service-request-id": res.body?.meta?.request_id,
    "x-service-credits-used": String(expected.credits_used),
    "x-service-credits-remaining": expected.credits_remaining === undefined ? null : String(expected.credits_remaining),
    "x-service-rate-limit": rate === undefined ? null : `limit=${rate.limit};remaining=${rate.remaining};reset_at=${rate.reset_at};tier=${rate.tier}`,
    "ratelimit-policy": rate === undefined ? null : `"default";q=${rate.limit};w=60`,
    ratelimit: rate === undefined ? null : `"default";r=${rate.remaining};t=${Math.ceil((Date.parse(rate.reset_at) - now) / 1000)}`,
    "retry-after": expected.retry_after ?? null,
  };
  const actual = {
    status: res.status,
    code: res.body?.error?.code,
    hasData: res.body?.data !== undefined,
    meta: res.body?.meta,
    headers: Object.fromEntries(Object.keys(headers).map((name) => [name, res.headers.get(name)])),
  };
  expect(actual).toStrictEqual({
    status: expected.status,
    code: expected.code,
    hasData: expected.code === undefined,
    meta,
    headers,
  });
  expect(res.body.meta.request_id).toMatch(REQUEST_ID);
  expect(Object.keys(res.body).sort()).toEqual(expected.code === undefined ? ["data", "meta"] : ["error", "meta"]);
}

/** Parses `limit=..;remaining=..;reset_at=..;tier=..` (the documented order) into meta.rate_limit's shape. */
export function parseRateLimitHeader(value: string | null): ExpectedRateLimit {
  const match = /^limit=(\d+);remaining=(\d+);reset_at=([0-9TZ:.-]+);tier=([a-z_]+)$/.exec(value ?? "");
  if (match === null) throw new Error(`x-service-rate-limit is not machine-parseable: ${value}`);
  return { limit: Number(match[1]), remaining: Number(match[2]), reset_at: match[3]!, tier: match[4]! };
}
