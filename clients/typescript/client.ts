// A small client of the API: one typed `call(operationId, params)` for every operation of the
// contract, with its types generated from docs/openapi.json by openapi-typescript (api.d.ts). The
// method and path of each operation are read from the server's own /openapi.json (free, never
// metered) on the first call, so a new operation needs only the regenerated types.
// Behaviour (the same as clients/python): errors are typed (errors.ts); a 429 is retried after
// `Retry-After`, and a connection that fails (refused, reset) is retried with a growing delay,
// up to `maxRetries` times; any other 4xx (402 included) and 5xx is thrown at once; each attempt
// has a timeout, and a timed-out call is not retried (the service may have answered and charged).
import type { operations } from "./api.d.ts";
import { CeiApiError, CeiConnectionError, CeiTimeoutError, errorClasses, RateLimitedError, type ErrorMeta } from "./errors.ts";

export type OperationId = keyof operations;

/** `path?: never` (no such parameters) as an empty object. */
type Present<T> = [NonNullable<T>] extends [never] ? object : NonNullable<T>;
type Parameters_<Id extends OperationId> = operations[Id]["parameters"];
type Body<Id extends OperationId> = operations[Id] extends { requestBody: { content: { "application/json": infer B } } } ? B : object;

/** An operation's path parameters, query parameters and JSON body fields, in one object. */
export type Params<Id extends OperationId> = Present<Parameters_<Id>["path"]> & Present<Parameters_<Id>["query"]> & Body<Id>;

type SuccessContent<Id extends OperationId> = operations[Id]["responses"] extends { 200: { content: infer C } } ? C : never;
/** What a successful call returns: `{data, meta}` for the API's operations, text for /docs and /llms.txt. */
export type Success<Id extends OperationId> = SuccessContent<Id>[keyof SuccessContent<Id>];

export interface RetryEvent {
  /** 1 for the first retry. */
  attempt: number;
  reason: "rate_limited" | "connection";
  delayMs: number;
}

export interface CeiClientOptions {
  /** The service, e.g. `http://127.0.0.1:8787` (what `npm start` prints). */
  baseUrl: string;
  apiKey: string;
  /** Per attempt, from sending the request to the last byte of the answer. Default 10 s. */
  timeoutMs?: number;
  /** Retries of a 429 or a failed connection. Default 2. */
  maxRetries?: number;
  /** A 429 whose `Retry-After` is longer than this is thrown at once. Default 60 s (a whole window). */
  maxRetryAfterMs?: number;
  /** Told before each retry (for logs). */
  onRetry?: (retry: RetryEvent) => void;
  /** The fetch to use; default the global one. */
  fetch?: typeof fetch;
}

interface Route { method: string; path: string; inPath: Set<string>; inQuery: Set<string> }

interface Answer { status: number; headers: Headers; text: string }

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

export class CeiClient {
  readonly #options: Required<Omit<CeiClientOptions, "onRetry">> & Pick<CeiClientOptions, "onRetry">;
  #routes: Promise<Map<string, Route>> | undefined;

  constructor(options: CeiClientOptions) {
    this.#options = {
      timeoutMs: 10_000, maxRetries: 2, maxRetryAfterMs: 60_000, fetch: globalThis.fetch, ...options,
      baseUrl: options.baseUrl.replace(/\/+$/, ""),
    };
  }

  /**
   * Calls one operation by its id: path parameters, query parameters and body fields all go in
   * `params`. Resolves with the success body; rejects with a CeiError subclass.
   */
  async call<Id extends OperationId>(operation: Id, ...params: object extends Params<Id> ? [Params<Id>?] : [Params<Id>]): Promise<Success<Id>> {
    const route = (await this.#routeTable()).get(operation);
    if (route === undefined) throw new TypeError(`the service publishes no operation "${operation}"`);
    const given = (params[0] ?? {}) as Record<string, unknown>;
    let path = route.path;
    const query = new URLSearchParams();
    const body: Record<string, unknown> = {};
    for (const [name, value] of Object.entries(given)) {
      if (value === undefined) continue;
      if (route.inPath.has(name)) path = path.replace(`{${name}}`, encodeURIComponent(String(value)));
      else if (route.inQuery.has(name)) query.set(name, String(value));
      else body[name] = value;
    }
    const search = query.size === 0 ? "" : `?${query}`;
    const answer = await this.#send(route.method, path + search, route.method === "POST" ? JSON.stringify(body) : undefined);
    return _parsed(answer) as Success<Id>;
  }

  /** Method, path and parameter places of every operation, from the served document (once). */
  #routeTable(): Promise<Map<string, Route>> {
    this.#routes ??= this.#send("GET", "/openapi.json", undefined).then((answer) => {
      const document = JSON.parse(answer.text) as { paths: Record<string, Record<string, { operationId: string; parameters?: Array<{ name: string; in: string }> }>> };
      const table = new Map<string, Route>();
      for (const [path, item] of Object.entries(document.paths)) {
        for (const [method, operation] of Object.entries(item)) {
          const parameters = operation.parameters ?? [];
          const names = (place: string) => new Set(parameters.filter((p) => p.in === place).map((p) => p.name));
          table.set(operation.operationId, { method: method.toUpperCase(), path, inPath: names("path"), inQuery: names("query") });
        }
      }
      return table;
    });
    // A failed load is not kept: the next call asks again.
    this.#routes.catch(() => (this.#routes = undefined));
    return this.#routes;
  }

  /** One request with the retry policy: the answer, or a thrown CeiError. */
  async #send(method: string, pathAndQuery: string, body: string | undefined): Promise<Answer> {
    const { baseUrl, apiKey, timeoutMs, maxRetries, maxRetryAfterMs, onRetry } = this.#options;
    const headers: Record<string, string> = { authorization: `Bearer ${apiKey}`, accept: "application/json" };
    if (body !== undefined) headers["content-type"] = "application/json";
    for (let attempt = 1; ; attempt++) {
      let answer: Answer;
      try {
        const response = await this.#options.fetch(baseUrl + pathAndQuery, { method, headers, body, signal: AbortSignal.timeout(timeoutMs) });
        answer = { status: response.status, headers: response.headers, text: await response.text() };
      } catch (error) {
        if (error instanceof DOMException && error.name === "TimeoutError") {
          throw new CeiTimeoutError(`${method} ${pathAndQuery}: no answer within ${timeoutMs} ms`, { cause: error });
        }
        if (attempt > maxRetries) throw new CeiConnectionError(`${method} ${pathAndQuery}: ${_reason(error)}`, { cause: error });
        const delayMs = 250 * 2 ** (attempt - 1);
        onRetry?.({ attempt, reason: "connection", delayMs });
        await sleep(delayMs);
        continue;
      }
      if (answer.status < 400) return answer;
      const failure = _failure(answer);
      if (!(failure instanceof RateLimitedError)) throw failure;
      // A little random delay, so that clients sharing a key do not all retry at the same instant.
      const delayMs = failure.retryAfterSeconds * 1000 + Math.floor(Math.random() * 250);
      if (attempt > maxRetries || delayMs > maxRetryAfterMs) throw failure;
      onRetry?.({ attempt, reason: "rate_limited", delayMs });
      await sleep(delayMs);
    }
  }
}

export function createCeiClient(options: CeiClientOptions): CeiClient {
  return new CeiClient(options);
}

function _parsed(answer: Answer): unknown {
  return (answer.headers.get("content-type") ?? "").startsWith("application/json") ? JSON.parse(answer.text) : answer.text;
}

/** The typed error of an error answer. */
function _failure(answer: Answer): CeiApiError {
  let body: { error: { code: keyof typeof errorClasses; message: string }; meta: ErrorMeta } | undefined;
  try {
    body = JSON.parse(answer.text) as typeof body;
  } catch {
    body = undefined;
  }
  if (body?.error === undefined || !Object.hasOwn(errorClasses, body.error.code)) {
    const meta = { request_id: answer.headers.get("x-service-request-id") ?? "", credits_used: 0 as const };
    return new CeiApiError(answer.status, { error: { code: "INTERNAL_ERROR", message: `HTTP ${answer.status}: ${answer.text.slice(0, 200)}` }, meta });
  }
  if (body.error.code === "RATE_LIMITED") return new RateLimitedError(answer.status, body, Number(answer.headers.get("retry-after") ?? "1"));
  return new errorClasses[body.error.code](answer.status, body);
}

function _reason(error: unknown): string {
  const cause = (error as { cause?: { code?: string; message?: string } }).cause;
  return cause?.code ?? cause?.message ?? (error instanceof Error ? error.message : String(error));
}
