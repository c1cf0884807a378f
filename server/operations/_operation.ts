// What one operation file exports: its request schema, its strict response schema, and a
// factory that prepares its statements once and returns the per-request handler.
import type Database from "better-sqlite3";
import type { z } from "zod";
import { ApiError, type ErrorDetail } from "../errors.ts";
import type { JsonText } from "../_json-text.ts";
import type { RateLimitInfo } from "../meter/meter.ts";
import type { OperationId, Scope, Tier } from "../policy.ts";
import { issuesToDetails, requestIssuePredicate, type RawRequest } from "../_request.ts";

export interface OperationDeps {
  snapshot: Database.Database;
  /** ms since the epoch; the only clock an operation may read. */
  now: () => number;
  /** Hex key of the snapshot's x_handle_index, derived from the compile secret; none: no handle search. */
  xHandleSearchKey?: string;
}

/**
 * The side-effect-free outcome of an operation. `invalid` and `not_found` carry the error to send
 * if the meter lets the request get that far (decision 3); stale data travels as `not_found`, so
 * that it is answered after the rate-limit and credit checks without charging.
 */
export type OperationResult =
  | { outcome: "ok"; data: unknown } // a plain value, or a JsonText
  | { outcome: "invalid" | "not_found"; error: ApiError };

/** The key that made the request, as admitted (GET /v1/key describes it; other operations ignore it). */
export interface Caller {
  id: string;
  tier: Tier;
  scopes: ReadonlySet<Scope>;
  credits_remaining: number;
  rate_limit: RateLimitInfo;
}

export type Validation = { valid: true; request: unknown } | { valid: false; error: ApiError };

/**
 * An operation split at the point that matters to admission (decision 20): `validate` is the
 * request schema and cheap checks that read no snapshot, bounded by the request's size; `run` is
 * the work, only ever given a validated request of an admitted key with enough credits.
 */
export interface OperationHandler {
  validate(raw: RawRequest, problems: ErrorDetail[]): Validation;
  run(request: unknown, caller: Caller): OperationResult;
}

export interface Operation {
  id: OperationId;
  request: z.ZodType;
  response: z.ZodType;
  create(deps: OperationDeps): OperationHandler;
}

export interface OperationDefinition<Req extends z.ZodType, Res extends z.ZodType> {
  id: OperationId;
  /** Validates `{ params, query }` (GET) or `{ body }` (POST) as one object. */
  request: Req;
  /** The strict shape of `data`; tests parse every response with it. */
  response: Res;
  /** A 422 check beyond the schema that reads no snapshot (it runs even when credits are short). */
  check?(request: z.output<Req>, deps: OperationDeps): ApiError | undefined;
  /**
   * Runs once per loaded snapshot: prepare statements (and serialise what the snapshot fixes) here.
   * The returned function runs per request; it may answer `data` already serialised (JsonText).
   */
  prepare(deps: OperationDeps): (request: z.output<Req>, caller: Caller) => z.output<Res> | JsonText | ApiError;
}

export function defineOperation<Req extends z.ZodType, Res extends z.ZodType>(
  definition: OperationDefinition<Req, Res>,
): Operation {
  return {
    id: definition.id,
    request: definition.request,
    response: definition.response,
    create(deps) {
      const run = definition.prepare(deps);
      const { request, check } = definition;
      const parsedRequests = new ValidRequestCache();
      return {
        validate(raw, problems) {
          const key = raw.body === undefined && problems.length === 0 ? requestKey(raw) : undefined;
          let data = key === undefined ? undefined : parsedRequests.get(key);
          if (data === undefined) {
            const parsed = request.safeParse(raw, { error: requestIssuePredicate });
            if (!parsed.success) issuesToDetails(parsed.error.issues, problems);
            if (problems.length > 0) return { valid: false, error: new ApiError("INVALID_REQUEST", undefined, problems) };
            data = parsed.data;
            if (key !== undefined) parsedRequests.set(key, data);
          }
          // After the cache: a check may read the clock (the trending date window).
          const refused = check?.(data as z.output<Req>, deps);
          if (refused !== undefined) return { valid: false, error: refused };
          return { valid: true, request: data };
        },
        run(validated, caller) {
          const result = run(validated as z.output<Req>, caller);
          if (result instanceof ApiError) {
            return { outcome: result.code === "INVALID_REQUEST" ? "invalid" : "not_found", error: result };
          }
          return { outcome: "ok", data: result };
        },
      };
    },
  };
}

/** At most this many valid requests are remembered per operation; then the cache starts again. */
const VALID_REQUEST_CACHE_LIMIT = 2_000;

/**
 * Valid GET requests already parsed (issue 12): a request schema is a pure function of the path
 * parameters and query, and zod costs more than the rest of the cheapest request's own work.
 * Only successes are kept, so every 422 is built exactly as before; handlers never modify requests.
 */
class ValidRequestCache {
  #entries = new Map<string, unknown>();

  get(key: string): unknown {
    return this.#entries.get(key);
  }

  set(key: string, request: unknown): void {
    if (this.#entries.size >= VALID_REQUEST_CACHE_LIMIT) this.#entries.clear();
    this.#entries.set(key, request);
  }
}

/** Names and values, each prefixed with its length, so that no two different requests share a key. */
function requestKey(raw: RawRequest): string {
  let key = "";
  for (const name in raw.params) key += `${name.length}:${name}${raw.params[name]!.length}:${raw.params[name]}`;
  key += "?";
  for (const name in raw.query) key += `${name.length}:${name}${raw.query[name]!.length}:${raw.query[name]}`;
  return key;
}

/** A problem found by an operation's own checks (after the schema), as a 422; `message` is a whole sentence. */
export function invalidParameter(path: string, message: string, code: string): ApiError {
  return new ApiError("INVALID_REQUEST", undefined, [{ path, message, code }]);
}
