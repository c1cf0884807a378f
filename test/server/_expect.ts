// Expected envelopes for a fresh key at the fixture clock (pro tier: 600 requests per minute).
import { expect } from "vitest";
import { REQUEST_ID } from "../_support/server.ts";

export const RESET_AT = "2026-03-01T12:01:00.000Z";

/** meta of a successful request: `requests` counts this key's requests in the window so far. */
export function okMeta(cost: number, creditsRemaining: number, requests = 1, tier = "pro", limit = 600) {
  return {
    request_id: expect.stringMatching(REQUEST_ID),
    credits_used: cost,
    credits_remaining: creditsRemaining,
    rate_limit: { limit, remaining: limit - requests, reset_at: RESET_AT, tier },
  };
}

/** meta of an error answered by the meter (counted) or before it (`requests` = 0). */
export function errorMeta(creditsRemaining: number, requests = 1, tier = "pro", limit = 600) {
  return okMeta(0, creditsRemaining, requests, tier, limit);
}

export function invalid(details: Array<{ path: string; code: string }>) {
  return {
    error: {
      code: "INVALID_REQUEST",
      message: "The request is invalid; see error.details.",
      details: details.map((d) => ({ ...d, message: expect.any(String) })),
    },
    meta: errorMeta(1_000),
  };
}

export const notFoundBody = {
  error: { code: "NOT_FOUND", message: "The requested resource was not found." },
  meta: errorMeta(1_000),
};

/** Decision 32: the record is served, the part asked for is not. */
export function missingPartBody(message: string) {
  return { error: { code: "NOT_FOUND", message }, meta: errorMeta(1_000) };
}

export const staleBody = {
  error: { code: "INTERNAL_ERROR", message: "The data behind this operation is not fresh enough to be served." },
  meta: errorMeta(1_000),
};
