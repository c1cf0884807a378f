// The request pipeline, in the check order of product decisions 3 and 27, with admission before
// work (decision 20): key (401) → key state (403) → the meter's settle: admission (key state again,
// the request counted in its window: 429; then the route: 404, and the scope: 403) → validation
// (422) → balance against cost (402) → the operation (404 or its data) → the charge committed → the
// 200. Every request of a known, active key is counted before its route or scope is judged, so a
// flood of unknown routes or out-of-scope calls meets the same window as any other (decision 27).
// With the SQLite meter all of settle is one job of the meter's per-turn transaction; with
// PostgreSQL, two round trips. A 429 reads nothing of the request beyond its route (a POST body is
// received, not decoded or parsed); a 402 runs only the request's validation, which input limits
// bound (query parameters, body size, details), so that it can still be a 422.
import type { IncomingMessage } from "node:http";
import type { H3Event } from "h3";
import { ApiError, insufficientCredits, type ErrorDetail } from "./errors.ts";
import type { Admission, Decision, KeyRecord, Meter, Settlement } from "./meter/interface.ts";
import type { Caller, OperationHandler } from "./operations/operation.ts";
import { operationPolicy, type Scope } from "./policy.ts";
import type { Route } from "./routes.ts";
import { receiveJsonBody, type ReceivedBody } from "./_body.ts";
import { dataValue } from "./prebuilt-json.ts";
import { readParams, readQuery } from "./_request.ts";
import type { Logger } from "./log.ts";
import type { RequestTrace } from "./observation-types.ts";
import { clientConnection, respondData, respondError, respondNobody, type Metering } from "./_respond.ts";

export interface PipelineDeps {
  meter: Meter;
  now: () => number;
  /** Where an unexpected error is logged, with its request id. */
  logger: Logger;
  /** Parse every `data` with the operation's strict response schema (tests: always). */
  checkResponses: boolean;
}

/** A route ready to serve: its handler created (statements prepared) and its policy looked up. */
export interface ServedRoute {
  route: Route;
  scope: Scope | null;
  cost: number;
  handler: OperationHandler;
}

export function serveRoute(route: Route, handler: OperationHandler): ServedRoute {
  const { scope, cost } = operationPolicy[route.operation];
  return { route, scope, cost, handler };
}

/** RFC 6750 b64token; keys are short, so anything longer is malformed without hashing it. */
const BEARER = /^Bearer +([A-Za-z0-9._~+/-]{1,256}=*) *$/i;

const invalidApiKey = new ApiError("INVALID_API_KEY");
const keyNotActive = new ApiError("FORBIDDEN", "The API key is disabled or revoked.");
/** Decision 37: an expired key is told apart from a disabled or revoked one by its message. */
const keyExpired = new ApiError("FORBIDDEN", "The API key has expired.");
const missingScope = new ApiError("FORBIDDEN", "The API key does not have the scope this operation requires.");
const routeNotFound = new ApiError("NOT_FOUND");
const rateLimited = new ApiError("RATE_LIMITED");
const internalError = new ApiError("INTERNAL_ERROR");
const refusedBy = { forbidden: keyNotActive, expired: keyExpired, out_of_scope: missingScope, rate_limited: rateLimited } as const;
const FRESH = { fresh: true } as const;

export class Pipeline {
  readonly #deps: PipelineDeps;

  constructor(deps: PipelineDeps) {
    this.#deps = deps;
  }

  /**
   * Steps 1-2: the key, or the 401 or 403 (disabled or revoked) answer. The meter may answer from a
   * cache; a 403 is only decided on the key as it stands, read again, and reports the balance and
   * window without counting (a key that is not active is never counted).
   */
  async authenticate(event: H3Event, trace: RequestTrace): Promise<KeyRecord | Response> {
    const header = event.req.headers.get("authorization");
    const match = header === null ? null : BEARER.exec(header);
    if (match === null) return this.#error(trace, invalidApiKey, {});
    const secret = match[1]!;
    let key = await this.#deps.meter.findKey(secret);
    if (key === undefined) return this.#error(trace, invalidApiKey, {});
    if (key.state !== "active") {
      key = await this.#deps.meter.findKey(secret, FRESH);
      if (key === undefined) return this.#error(trace, invalidApiKey, {});
    }
    trace.keyId = key.id;
    if (key.state !== "active") return this.#error(trace, key.state === "expired" ? keyExpired : keyNotActive, await this.#deps.meter.status(key));
    return key;
  }

  /** Unknown path or method: counted in the key's window like any request, then 404 (decisions 5, 27). */
  notFound(event: H3Event, trace: RequestTrace): Promise<Response> {
    return this.handle(event, trace, undefined, undefined);
  }

  /**
   * Every request after the key: `served` is the route the path matched, or undefined when none
   * did. A method the route does not list (HEAD is not a method of this API; h3 answers HEAD with
   * the GET route) is an unknown route too.
   */
  async handle(event: H3Event, trace: RequestTrace, matched: ServedRoute | undefined, rawParams: Record<string, string> | undefined): Promise<Response> {
    let known: KeyRecord | undefined;
    const served = matched !== undefined && matched.route.method === event.req.method ? matched : undefined;
    // Decision 39: a client that has gone is neither charged nor answered; asked again by the meter
    // just before the charge commits. A backlog of requests whose clients gave up (a reader that
    // was stopped, then resumed) then costs the meter nothing.
    const abandoned = clientConnection(event);
    if (abandoned?.() === true) return respondNobody();
    try {
      const key = await this.authenticate(event, trace);
      if (!_isKey(key)) return key;
      known = key;
      if (abandoned?.() === true) return respondNobody();
      if (served === undefined) {
        const settlement = await this.#deps.meter.settle({ key, operation: null, requestId: trace.requestId, work: _routeNotFound });
        return await this.#answer(trace, undefined, settlement, undefined);
      }
      // Only received here, not decoded or parsed: a 429 does no work on it (decision 20).
      const body = served.route.method === "POST" ? await receiveJsonBody(event.req as unknown as Request, event.runtime?.node?.req as IncomingMessage | undefined) : undefined;
      const search = event.url.search;
      const settlement = await this.#deps.meter.settle({
        key, operation: served.route.operation, requestId: trace.requestId, abandoned,
        work: (admission) => this.#work(served, rawParams, search, body, key, admission),
      });
      return await this.#answer(trace, served, settlement, body);
    } catch (error) {
      this.#deps.logger.error({ err: error, request_id: trace.requestId, operation: served?.route.operation ?? "unmatched" }, "unexpected error");
      const metering = known === undefined ? {} : await _safeStatus(this.#deps.meter, known);
      return this.#error(trace, internalError, metering);
    }
  }

  /**
   * Steps 6-8 for an admitted request, inside the meter's settle: 422, 402, then the operation (404
   * or its data) and what it costs. Synchronous and without side effects (the meter may run it again).
   */
  #work(
    served: ServedRoute, rawParams: Record<string, string> | undefined, search: string, body: ReceivedBody | undefined,
    key: KeyRecord, admission: Admission,
  ): Decision<Answer> {
    const problems: ErrorDetail[] = [];
    const params = readParams(rawParams, problems);
    const query = readQuery(search, problems);
    // A query that cannot be read at all has no fields to check: report it with the rest.
    if (query === undefined) return _free(new ApiError("INVALID_REQUEST", undefined, problems));
    const validation = body === undefined
      ? served.handler.validate({ params, query }, problems)
      : served.handler.validateReceived(params, query, body, problems);
    if (!validation.valid) return _free(validation.error);
    if (admission.credits_remaining < served.cost) return _free(insufficientCredits(served.cost, admission.credits_remaining));
    const caller: Caller = { id: key.id, tier: admission.rate_limit.tier, scopes: key.scopes, credits_remaining: admission.credits_remaining, rate_limit: admission.rate_limit };
    const result = served.handler.run(validation.request, caller);
    if (result.outcome !== "ok") return _free(result.error);
    this.#checkResponse(served, result.data);
    return { value: { data: result.data }, cost: served.cost };
  }

  /** The response to a settled request: the refusal, the work's error, or its data with the charge. */
  async #answer(trace: RequestTrace, served: ServedRoute | undefined, settlement: Settlement<Answer>, body: ReceivedBody | undefined): Promise<Response> {
    const { admission } = settlement;
    if (settlement.outcome === "refused") {
      // A secret rerolled since it was looked up, its grace over: unknown, like any other (decision 37).
      if (admission.result === "unknown") {
        trace.keyId = undefined;
        return this.#error(trace, invalidApiKey, {});
      }
      return this.#error(trace, refusedBy[admission.result as Exclude<Admission["result"], "admitted" | "unknown">], admission);
    }
    if (settlement.outcome === "failed") throw settlement.error;
    if (settlement.outcome === "abandoned") return respondNobody();
    const { value, charge } = settlement;
    if ("error" in value) {
      // A body refused from its headers is read on (discarded) before its 422, as decision 6 keeps the connection.
      if (value.error.code === "INVALID_REQUEST" && body !== undefined && "drain" in body) await body.drain?.();
      return this.#error(trace, value.error, admission);
    }
    const requestId = trace.requestId;
    if (charge === undefined || served === undefined) return respondData(requestId, value.data, { ...admission, credits_used: 0 }, this.#deps.now());
    const metering = { credits_remaining: charge.credits_remaining, rate_limit: admission.rate_limit };
    switch (charge.result) {
      case "charged":
        trace.creditsUsed = served.cost;
        return respondData(requestId, value.data, { ...metering, credits_used: served.cost }, this.#deps.now());
      case "forbidden":
        return this.#error(trace, keyNotActive, metering);
      case "insufficient_credits":
        return this.#error(trace, insufficientCredits(served.cost, charge.credits_remaining), metering);
    }
  }

  #checkResponse(served: ServedRoute, data: unknown): void {
    if (!this.#deps.checkResponses) return;
    const parsed = served.route.handler.response.safeParse(dataValue(data));
    if (!parsed.success) {
      throw new Error(`response of ${served.route.operation} does not match its schema: ${JSON.stringify(parsed.error.issues)}`);
    }
  }

  /** Every error answer of the pipeline: its code noted for the log and metrics. */
  #error(trace: RequestTrace, error: ApiError, metering: Omit<Metering, "credits_used">): Response {
    trace.code = error.code;
    return respondError(trace.requestId, error, metering, this.#deps.now());
  }
}

/** What the work of an admitted request decided: its data, or the error to answer (charged nothing). */
type Answer = { data: unknown } | { error: ApiError };

function _free(error: ApiError): Decision<Answer> {
  return { value: { error }, cost: 0 };
}

/** The work of a request that matched no route, once it is counted: 404, free. */
function _routeNotFound(): Decision<Answer> {
  return _free(routeNotFound);
}

function _isKey(value: KeyRecord | Response): value is KeyRecord {
  return (value as KeyRecord).scopes !== undefined;
}

/** An internal error must still answer even if the meter itself is what failed. */
async function _safeStatus(meter: Meter, key: KeyRecord): Promise<{ credits_remaining?: number; rate_limit?: Admission["rate_limit"] }> {
  try {
    return await meter.status(key);
  } catch {
    return {};
  }
}
