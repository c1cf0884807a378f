// The shapes that travel with every answer, as zod: the `{data, meta}` and `{error, meta}`
// envelopes and the response headers. _respond.ts writes them; tests parse with them; the OpenAPI
// document (server/openapi/) is derived from them.
import { z } from "zod";
import { errorCodes, type ErrorCode } from "./errors.ts";
import { tierRateLimits, tiers } from "./policy.ts";

export const REQUEST_ID_PATTERN = /^[A-Za-z0-9_.:-]{8,96}$/;

/**
 * Balances are whole credits: never negative, and never more than 2^53 - 1, the largest integer
 * every JSON reader holds exactly (the meter refuses a credit that would pass it).
 */
const credits = z.number().int().min(0).max(Number.MAX_SAFE_INTEGER);
/** The most requests any tier may make in one window (decision 10: `internal`). */
const MAX_WINDOW_REQUESTS = Math.max(...Object.values(tierRateLimits));

export const rateLimitInfo = z.strictObject({
  limit: z.number().int().min(1).max(MAX_WINDOW_REQUESTS).describe("Requests the key's tier may make per window."),
  remaining: z.number().int().min(0).max(MAX_WINDOW_REQUESTS).describe("Requests left in the current window."),
  reset_at: z.iso.datetime({ precision: 3 }).describe("When the key's current rate window ends."),
  tier: z.enum(tiers),
}).describe("The key's rate window.");

const metaFields = {
  request_id: z.string().regex(REQUEST_ID_PATTERN).describe("Also sent as the x-service-request-id header."),
  credits_used: credits.describe("Credits charged for this request; 0 on every error."),
  credits_remaining: credits.describe("Credits left after the request."),
  rate_limit: rateLimitInfo,
};

/** `meta` of every success: the key is known, so its balance and window are always sent. */
export const meta = z.strictObject(metaFields);

/**
 * Whether an error knows the key's balance and window: never without a key (401); always after
 * the meter answered (402, 403, 404, 429 of the API); possibly not on a 422 the HTTP layer gives
 * before the key is read, or on a 500 whose meter failed.
 */
export const keyKnownOn: Record<ErrorCode, "never" | "always" | "maybe"> = {
  INVALID_API_KEY: "never",
  INSUFFICIENT_CREDITS: "always",
  FORBIDDEN: "always",
  NOT_FOUND: "always",
  INVALID_REQUEST: "maybe",
  RATE_LIMITED: "always",
  INTERNAL_ERROR: "maybe",
};

/** An error's `meta`: nothing charged; the key's balance and window as `presence` says. */
function errorMeta(presence: "never" | "always" | "maybe") {
  const { request_id, credits_remaining, rate_limit } = metaFields;
  const charged = { request_id, credits_used: z.literal(0).describe("Errors never charge.") };
  if (presence === "never") return z.strictObject(charged);
  if (presence === "always") return z.strictObject({ ...charged, credits_remaining, rate_limit });
  return z.strictObject({ ...charged, credits_remaining: credits_remaining.optional(), rate_limit: rate_limit.optional() });
}

export const errorDetail = z.strictObject({
  path: z.string().describe("The parameter or body field, e.g. `limit` or `types[1]`."),
  message: z.string(),
  code: z.string().describe("A machine-readable reason, e.g. `too_big`, `unknown_parameter`, `bulk_listing`."),
});

/**
 * The error envelope of one code: `details` is present exactly for INVALID_REQUEST. `keyKnown`
 * overrides the code's usual presence of the key's balance and window (the public paths' 429,
 * which no key reaches).
 */
export function errorEnvelope(code: ErrorCode, keyKnown: "never" | "always" | "maybe" = keyKnownOn[code]) {
  const details = z.array(errorDetail).min(1);
  return z.strictObject({
    error: z.strictObject({
      code: z.literal(code),
      message: z.string().min(1),
      ...(code === "INVALID_REQUEST" ? { details } : {}),
    }),
    meta: errorMeta(keyKnown),
  });
}

/** Any error envelope, from the API or from the HTTP layer. */
export const anyErrorEnvelope = z.union([...errorCodes.map((code) => errorEnvelope(code)), errorEnvelope("RATE_LIMITED", "never")]);

export function successEnvelope<Data extends z.ZodType>(data: Data) {
  return z.strictObject({ data, meta });
}

const digits = (max: number) => z.string().regex(new RegExp(`^[0-9]{1,${max}}$`));

/**
 * Response headers, by when they are sent. `always`: on every answer. `keyKnown`: whenever the
 * request carried a known key (every 200, and every error after authentication). `rateLimited`: 429.
 */
export const responseHeaders = {
  always: {
    "Cache-Control": z.literal("no-store").describe("Responses are never cacheable."),
    "x-service-request-id": z.string().regex(REQUEST_ID_PATTERN).describe("Equals `meta.request_id`."),
    "x-service-credits-used": digits(20).describe("Equals `meta.credits_used`: the cost on a 200, 0 on every error."),
  },
  /** On every answer from the app and on the listener's own 422s; absent only while no snapshot is loaded. */
  snapshot: {
    "x-service-snapshot": z
      .string()
      .regex(/^[0-9a-f]{64}$/)
      .describe("The content hash of the compiled snapshot that answered; every response is answered wholly from it. A new value means the data changed."),
  },
  keyKnown: {
    "x-service-credits-remaining": digits(20).describe("Equals `meta.credits_remaining`."),
    "x-service-rate-limit": z
      .string()
      .max(512)
      .regex(/^limit=[0-9]+;remaining=[0-9]+;reset_at=[0-9T:.-]+Z;tier=[a-z_]+$/)
      .describe("`limit=60;remaining=59;reset_at=2026-11-21T18:30:00.000Z;tier=free`: `meta.rate_limit` in one line."),
    "RateLimit-Policy": z
      .string()
      .regex(/^"default";q=[0-9]+;w=[0-9]+$/)
      .describe("IETF draft rate-limit policy: `q` requests per `w` seconds."),
    RateLimit: z
      .string()
      .regex(/^"default";r=[0-9]+;t=[0-9]+$/)
      .describe("IETF draft rate-limit state: `r` requests remaining, `t` seconds until the window resets."),
  },
  rateLimited: {
    "Retry-After": digits(10).describe("Whole seconds until the rate window resets, rounded up; never 0."),
  },
} as const;
