// The request pipeline, in the check order of product decision 3:
// key (401/403) → route (404) → scope (403) → outcome computed without side effects →
// meter.settle (429, 422, 402, 404, charge) → response, sent after the settle has committed.
import type { H3Event } from "h3";
import { ApiError, type ErrorDetail } from "./errors.ts";
import type { KeyRecord, Meter, Settlement } from "./meter/meter.ts";
import type { OperationHandler, OperationResult } from "./operations/_operation.ts";
import { operationPolicy, type Scope } from "./policy.ts";
import type { Route } from "./routes.ts";
import { readJsonBody } from "./_body.ts";
import { readParams, readQuery } from "./_request.ts";
import { newRequestId, respondData, respondError } from "./_respond.ts";

export interface PipelineDeps {
  meter: Meter;
  now: () => number;
  /** Parse every `data` with the operation's strict response schema (tests: always). */
  checkResponses: boolean;
}

/** A route ready to serve: its handler created (statements prepared) and its policy looked up. */
export interface ServedRoute {
  route: Route;
  scope: Scope;
  cost: number;
  run: OperationHandler;
}

export function serveRoute(route: Route, run: OperationHandler): ServedRoute {
  const { scope, cost } = operationPolicy[route.operation];
  return { route, scope, cost, run };
}

/** RFC 6750 b64token; keys are short, so anything longer is malformed without hashing it. */
const BEARER = /^Bearer +([A-Za-z0-9._~+/-]{1,256}=*) *$/i;

const invalidApiKey = new ApiError("INVALID_API_KEY");
const keyNotActive = new ApiError("FORBIDDEN", "The API key is disabled or revoked.");
const missingScope = new ApiError("FORBIDDEN", "The API key does not have the scope this operation requires.");
const routeNotFound = new ApiError("NOT_FOUND");
const rateLimited = new ApiError("RATE_LIMITED");
const insufficientCredits = new ApiError("INSUFFICIENT_CREDITS");
const internalError = new ApiError("INTERNAL_ERROR");

export class Pipeline {
  readonly #deps: PipelineDeps;

  constructor(deps: PipelineDeps) {
    this.#deps = deps;
  }

  /** Steps 1-2: the key, or the 401/403 answer. Unknown, missing and malformed keys look alike. */
  authenticate(event: H3Event, requestId: string): KeyRecord | Response {
    const header = event.req.headers.get("authorization");
    const match = header === null ? null : BEARER.exec(header);
    const key = match === null ? undefined : this.#deps.meter.findKey(match[1]!);
    if (key === undefined) return respondError(requestId, invalidApiKey, {}, this.#deps.now());
    if (key.state !== "active") return this.refuse(requestId, key, keyNotActive);
    return key;
  }

  /** An answer given before the meter's transaction: nothing counted, balance and window reported. */
  refuse(requestId: string, key: KeyRecord, error: ApiError): Response {
    return respondError(requestId, error, this.#deps.meter.status(key), this.#deps.now());
  }

  /** Unknown path or method, or an unreleased operation: 404 after authentication (decision 5). */
  notFound(event: H3Event): Response {
    const requestId = newRequestId();
    const key = this.authenticate(event, requestId);
    if (!_isKey(key)) return key;
    return this.refuse(requestId, key, routeNotFound);
  }

  async handle(event: H3Event, served: ServedRoute, rawParams: Record<string, string> | undefined): Promise<Response> {
    const requestId = newRequestId();
    let known: KeyRecord | undefined;
    try {
      const key = this.authenticate(event, requestId);
      if (!_isKey(key)) return key;
      known = key;
      // h3 answers HEAD with the GET route; HEAD is not a method of this API.
      if (event.req.method !== served.route.method) return this.refuse(requestId, key, routeNotFound);
      if (!key.scopes.has(served.scope)) return this.refuse(requestId, key, missingScope);
      const result = await this.#outcome(event, served, rawParams);
      const settlement = await this.#deps.meter.settle({
        key, operation: served.route.operation, cost: served.cost, requestId, outcome: result.outcome,
      });
      return this.#answer(requestId, result, settlement);
    } catch (error) {
      console.error(`[cei] ${requestId} ${served.route.operation}:`, error);
      const metering = known === undefined ? {} : _safeStatus(this.#deps.meter, known);
      return respondError(requestId, internalError, metering, this.#deps.now());
    }
  }

  /** Step 4: validation, lookup and body, without side effects. */
  async #outcome(event: H3Event, served: ServedRoute, rawParams: Record<string, string> | undefined): Promise<OperationResult> {
    const problems: ErrorDetail[] = [];
    const params = readParams(rawParams, problems);
    const query = readQuery(event.url.search, problems);
    if (served.route.method === "POST") {
      const bodyProblems: ErrorDetail[] = [];
      const body = await readJsonBody(event.req as unknown as Request, bodyProblems);
      // A body that cannot be read has no fields to check: report it with the other request problems.
      if (bodyProblems.length > 0) {
        return { outcome: "invalid", error: new ApiError("INVALID_REQUEST", undefined, [...problems, ...bodyProblems]) };
      }
      return this.#checked(served, served.run({ params, query, body }, problems));
    }
    return this.#checked(served, served.run({ params, query }, problems));
  }

  #checked(served: ServedRoute, result: OperationResult): OperationResult {
    if (this.#deps.checkResponses && result.outcome === "ok") {
      const parsed = served.route.handler.response.safeParse(result.data);
      if (!parsed.success) {
        throw new Error(`response of ${served.route.operation} does not match its schema: ${JSON.stringify(parsed.error.issues)}`);
      }
    }
    return result;
  }

  #answer(requestId: string, result: OperationResult, settlement: Settlement): Response {
    const now = this.#deps.now();
    switch (settlement.result) {
      case "charged":
        if (result.outcome !== "ok") throw new Error("the meter charged a request that had no answer");
        return respondData(requestId, result.data, settlement, now);
      case "rate_limited":
        return respondError(requestId, rateLimited, settlement, now);
      case "insufficient_credits":
        return respondError(requestId, insufficientCredits, settlement, now);
      case "forbidden":
        return respondError(requestId, keyNotActive, settlement, now);
      case "invalid":
      case "not_found":
        if (result.outcome === "ok") throw new Error(`the meter answered ${settlement.result} to a request that had an answer`);
        return respondError(requestId, result.error, settlement, now);
    }
  }
}

function _isKey(value: KeyRecord | Response): value is KeyRecord {
  return (value as KeyRecord).scopes !== undefined;
}

/** An internal error must still answer even if the meter itself is what failed. */
function _safeStatus(meter: Meter, key: KeyRecord): { credits_remaining?: number; rate_limit?: Settlement["rate_limit"] } {
  try {
    return meter.status(key);
  } catch {
    return {};
  }
}
