// What one operation file exports: its request schema, its strict response schema, and a
// factory that prepares its statements once and returns the per-request handler.
import type Database from "better-sqlite3";
import type { z } from "zod";
import { ApiError, type ErrorDetail } from "../errors.ts";
import { JsonText } from "../prebuilt-json.ts";
import type { RateLimitInfo } from "../meter/interface.ts";
import type { OperationId, Scope, Tier } from "../policy.ts";
import { issuesToDetails, requestIssuePredicate, type RawRequest } from "../_request.ts";
import { parseJsonBody, receivedBytes, type ReceivedBody } from "../_body.ts";

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
  /**
   * `validate` for a POST: the body as received, parsed only when the same bytes (with the same
   * parameters) are not remembered as a valid request already.
   */
  validateReceived(params: Record<string, string>, query: Record<string, string>, body: ReceivedBody, problems: ErrorDetail[]): Validation;
  run(request: unknown, caller: Caller): OperationResult;
}

export interface Operation {
  id: OperationId;
  request: z.ZodType;
  response: z.ZodType;
  /** The 404s it may answer for a served record without the part asked for (decision 32). */
  missingParts: readonly ApiError[];
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
  /**
   * Declares that an answer (data or error) is fixed by the request and the snapshot, not by the
   * caller: it is then kept, serialised, for as long as the request's parsed form is remembered, and
   * a repeated request is answered with the same text without a read or a serialisation.
   * `until` is the last instant (ms) a data answer may be sent when the clock retires it (freshness,
   * an event's status); after it the operation runs again. Absent: kept while the snapshot serves.
   */
  keepAnswers?: { until?(data: z.output<Res>, now: number): number };
  /**
   * Every `missingPart` 404 the operation may answer (decision 32): the contract lists their
   * messages and the tests reach each one. An absent record answers `notFound`, never one of these.
   */
  missingParts?: readonly ApiError[];
}

export function defineOperation<Req extends z.ZodType, Res extends z.ZodType>(
  definition: OperationDefinition<Req, Res>,
): Operation {
  return {
    id: definition.id,
    request: definition.request,
    response: definition.response,
    missingParts: definition.missingParts ?? [],
    create(deps) {
      const prepared = definition.prepare(deps);
      const run = definition.keepAnswers === undefined ? prepared : keptAnswers(prepared, definition.keepAnswers, deps.now);
      const { request, check } = definition;
      const parsedRequests = new ValidRequestCache();
      const parsedBodies = new ValidBodyCache();
      const checked = (data: unknown): Validation => {
        // After the caches: a check may read the clock (the trending date window).
        const refused = check?.(data as z.output<Req>, deps);
        return refused === undefined ? { valid: true, request: data } : { valid: false, error: refused };
      };
      const parse = (raw: RawRequest, problems: ErrorDetail[]): unknown => {
        const parsed = request.safeParse(raw, { error: requestIssuePredicate });
        if (!parsed.success) issuesToDetails(parsed.error.issues, problems);
        return problems.length > 0 ? undefined : parsed.data;
      };
      const invalid = (problems: ErrorDetail[]): Validation => ({ valid: false, error: new ApiError("INVALID_REQUEST", undefined, problems) });
      return {
        validate(raw, problems) {
          const key = raw.body === undefined && problems.length === 0 ? requestKey(raw) : undefined;
          let data = key === undefined ? undefined : parsedRequests.get(key);
          if (data === undefined) {
            data = parse(raw, problems);
            if (data === undefined) return invalid(problems);
            if (key !== undefined) parsedRequests.set(key, data);
          }
          return checked(data);
        },
        validateReceived(params, query, body, problems) {
          const received = problems.length === 0 ? receivedBytes(body) : undefined;
          const bytes = received !== undefined && received.length <= VALID_BODY_CACHE_MAX_BODY_BYTES ? received : undefined;
          const key = bytes === undefined ? undefined : `${requestKey({ params, query })}${bodyFingerprint(bytes)}`;
          let data = key === undefined ? undefined : parsedBodies.get(key, bytes!);
          if (data === undefined) {
            const parsedBody = parseJsonBody(body, problems);
            // A body that cannot be read at all has no fields to check: report it with the rest.
            if (parsedBody === undefined) return invalid(problems);
            data = parse({ params, query, body: parsedBody }, problems);
            if (data === undefined) return invalid(problems);
            if (key !== undefined) parsedBodies.set(key, bytes!, data);
          }
          return checked(data);
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

type Answer<Res> = Res | JsonText | ApiError;

/**
 * The answers of `run`, serialised and kept by the parsed request they answered: a remembered
 * request (ValidRequestCache) is the same object every time, and an answer goes when its request
 * is forgotten (a WeakMap), so they are bounded together.
 */
function keptAnswers<Req, Res>(
  run: (request: Req, caller: Caller) => Answer<Res>,
  keep: { until?(data: Res, now: number): number },
  now: () => number,
): (request: Req, caller: Caller) => Answer<Res> {
  // Every request schema is an object schema: its parsed form can key a WeakMap.
  const kept = new WeakMap<object, { answer: JsonText | ApiError; from: number; until: number }>();
  const timed = keep.until !== undefined;
  return (request, caller) => {
    const found = kept.get(request as object);
    // A timed answer holds from when it was made (a clock set back makes it again) until `until`.
    const at = timed ? now() : 0;
    if (found !== undefined && found.from <= at && at <= found.until) return found.answer;
    const answer = run(request, caller);
    const entry = answer instanceof ApiError || answer instanceof JsonText
      ? { answer, from: at, until: Infinity }
      : { answer: new JsonText(JSON.stringify(answer)), from: at, until: keep.until?.(answer, at) ?? Infinity };
    kept.set(request as object, entry);
    return entry.answer;
  };
}

/** At most this many valid requests are remembered per operation; then the cache starts again. */
const VALID_REQUEST_CACHE_LIMIT = 2_000;

/**
 * Valid GET requests already parsed: a request schema is a pure function of the path
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

/**
 * Bodies up to this size are remembered: a search is ~50-200 bytes, and a larger valid body can
 * only be padding, which is no reason to spend a copy and a comparison on it.
 */
export const VALID_BODY_CACHE_MAX_BODY_BYTES = 2 * 1024;

/**
 * Valid POST requests already parsed, by their parameters and body bytes: the same bytes
 * always parse and validate to the same request, and decoding, JSON.parse and zod cost ~4 µs for a
 * search's body (~13 µs of server CPU over HTTP). Looked up by a short fingerprint (parameters,
 * length, first and last bytes) and confirmed by comparing the bytes; one body per fingerprint
 * (another replaces it), so no lookup compares more than one body. At most
 * VALID_REQUEST_CACHE_LIMIT bodies (4 MiB) per operation; then the cache starts again.
 */
class ValidBodyCache {
  #entries = new Map<string, { bytes: Buffer; request: unknown }>();

  get(key: string, bytes: Buffer): unknown {
    const entry = this.#entries.get(key);
    return entry !== undefined && entry.bytes.equals(bytes) ? entry.request : undefined;
  }

  set(key: string, bytes: Buffer, request: unknown): void {
    if (this.#entries.size >= VALID_REQUEST_CACHE_LIMIT) this.#entries.clear();
    // A copy: a received chunk may be a view of a larger buffer that must not be kept alive.
    this.#entries.set(key, { bytes: Buffer.from(bytes), request });
  }
}

/** Bytes at each end of a body that go into its fingerprint. */
const FINGERPRINT_END_BYTES = 32;

/** The body's length and its first and last bytes (as latin1: any byte is one character). */
function bodyFingerprint(bytes: Buffer): string {
  const end = Math.min(FINGERPRINT_END_BYTES, bytes.length);
  return `#${bytes.length}:${bytes.toString("latin1", 0, end)}${bytes.toString("latin1", bytes.length - end, bytes.length)}`;
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
