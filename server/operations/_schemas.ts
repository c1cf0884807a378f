// Request and response building blocks shared by the operation files.
import { z } from "zod";

// ---- request ----

/** Slugs and exact ids in paths: 1-160 characters (decision 7: 422 naming the parameter). */
export const pathSlug = z
  .string()
  .min(1, "must be 1-160 characters")
  .max(160, "must be 1-160 characters");

// Defaults live in the schemas, so that the handler, the docs and the OpenAPI document share them.

/** An integer query parameter from 1 to `max` (`limit`, `days`): digits only, then the range; `fallback` when absent. */
export function countQuery(max: number, fallback: number) {
  return z
    .string()
    .regex(/^[0-9]{1,6}$/, `must be an integer from 1 to ${max}`)
    .transform(Number)
    .pipe(z.number().int().min(1, `must be an integer from 1 to ${max}`).max(max, `must be an integer from 1 to ${max}`))
    .default(fallback);
}

/** `limit` as a query string: digits only, then the documented range; `fallback` when absent. */
export const limitQuery = countQuery;

/** `limit` in a JSON body; `fallback` when absent. */
export function limitBody(max: number, fallback: number) {
  return z
    .number(`must be an integer from 1 to ${max}`)
    .int(`must be an integer from 1 to ${max}`)
    .min(1, `must be an integer from 1 to ${max}`)
    .max(max, `must be an integer from 1 to ${max}`)
    .default(fallback);
}

/** An optional query enum (absent: no filter); the message lists the allowed values. */
export function enumQuery<const T extends readonly [string, ...string[]]>(values: T) {
  return z.enum(values, `must be one of: ${values.join(", ")}`).optional();
}

/** A query enum that takes `fallback` when absent. */
export function enumQueryOr<const T extends readonly [string, ...string[]]>(values: T, fallback: T[number]) {
  return z.enum(values, `must be one of: ${values.join(", ")}`).default(fallback as never);
}

export const noQuery = z.strictObject({});

// ---- response ----

/** The `limit` a list applied, echoed: the request's, or the default (1 to the request's maximum). */
export const limitApplied = (max: number) => z.number().int().min(1).max(max);

/** A response-local rank in a list of at most `max` entries. */
export const rankOf = (max: number) => z.number().int().min(1).max(max);

/** How many records a list counts (all that are served, not only those returned). */
export const recordCount = z.number().int().min(0);

export const dateTime = z.iso.datetime({ precision: 3 });
export const date = z.iso.date();

export const projectRef = z.strictObject({ id: z.string(), slug: z.string(), name: z.string() });
export const personRef = z.strictObject({ id: z.string(), slug: z.string(), full_name: z.string() });
export const tokenRef = z.strictObject({ id: z.string(), symbol: z.string(), name: z.string() });
export const stockRef = z.strictObject({ id: z.string(), slug: z.string(), name: z.string(), ticker: z.string() });

export const projectIdentity = z.strictObject({ type: z.literal("project"), id: z.string(), slug: z.string(), name: z.string() });
export const tokenIdentity = z.strictObject({ type: z.literal("token"), id: z.string(), symbol: z.string(), name: z.string() });
export const personIdentity = z.strictObject({ type: z.literal("person"), id: z.string(), slug: z.string(), full_name: z.string() });
/** The kinds of fund the API knows (the spec's list; `family-office` keeps its spelling). */
export const fundTypeValues = ["vc", "angel", "accelerator", "launchpad", "cvc", "family-office"] as const;
export const fundIdentity = z.strictObject({
  type: z.literal("fund"), id: z.string(), slug: z.string(), name: z.string(), fund_type: z.enum(fundTypeValues),
});
export const stockIdentity = z.strictObject({
  type: z.literal("stock"), id: z.string(), slug: z.string(), name: z.string(), ticker: z.string(),
});
export const narrativeIdentity = z.strictObject({ type: z.literal("narrative"), id: z.string(), slug: z.string(), name: z.string() });
export const linkedEntity = z.strictObject({ type: z.enum(["project", "person"]), id: z.string() });
export const xAccountReference = z.strictObject({
  type: z.literal("x_account"), id: z.string(), linked_entity: linkedEntity.optional(),
});

// ---- ranking ----

/**
 * Response-local ranks 1..n, assigned after filtering. The SQL selects `0 AS rank` so that rows
 * keep the response's field order; a window function would cost more than the rest of the query.
 */
export function ranked<T extends { rank: number }>(rows: T[]): T[] {
  for (let i = 0; i < rows.length; i++) rows[i]!.rank = i + 1;
  return rows;
}

/**
 * The first `limit` rows of a list read with a literal `LIMIT` of the schema's maximum. A bound
 * `LIMIT ?` measured ~80 µs per run against ~10 µs for the same statement with a literal limit
 * (docs/performance.md), so list statements never bind their limit.
 */
export function firstRows<T>(rows: T[], limit: number): T[] {
  if (rows.length > limit) rows.length = limit;
  return rows;
}
