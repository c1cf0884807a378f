// The shapes that travel with every answer, as zod: the `{data, meta}` and `{error, meta}`
// envelopes and the response headers. _respond.ts writes them; tests parse with them; the OpenAPI
// document (server/openapi/) is derived from them.
import { z } from "zod";
import { errorCodes, type ErrorCode } from "./errors.ts";
import { tiers } from "./policy.ts";

export const REQUEST_ID_PATTERN = /^[A-Za-z0-9_.:-]{8,96}$/;

const count = z.number().int().min(0);

export const rateLimitInfo = z.strictObject({
  limit: count,
  remaining: count,
  reset_at: z.iso.datetime({ precision: 3 }).describe("When the key's current rate window ends."),
  tier: z.enum(tiers),
}).describe("The key's rate window; present whenever the key is known.");

export const meta = z.strictObject({
  request_id: z.string().regex(REQUEST_ID_PATTERN).describe("Also sent as the x-service-request-id header."),
  credits_used: count.describe("Credits charged for this request; 0 on every error."),
  credits_remaining: count.optional().describe("Credits left after the request; present whenever the key is known."),
  rate_limit: rateLimitInfo.optional(),
});

export const errorDetail = z.strictObject({
  path: z.string().describe("The parameter or body field, e.g. `limit` or `types[1]`."),
  message: z.string(),
  code: z.string().describe("A machine-readable reason, e.g. `too_big`, `unknown_parameter`, `bulk_listing`."),
});

/** The error envelope of one code: `details` is present exactly for INVALID_REQUEST. */
export function errorEnvelope(code: ErrorCode) {
  const details = z.array(errorDetail).min(1);
  return z.strictObject({
    error: z.strictObject({
      code: z.literal(code),
      message: z.string().min(1),
      ...(code === "INVALID_REQUEST" ? { details } : {}),
    }),
    meta: meta.extend({ credits_used: z.literal(0) }),
  });
}

/** Any error envelope. */
export const anyErrorEnvelope = z.union(errorCodes.map(errorEnvelope));

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
