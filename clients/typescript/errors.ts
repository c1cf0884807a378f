// The errors a call can end in, one class per error code of the API (docs/errors.md), and two
// for what happens before an answer: the connection failed, or no answer came in time.
import type { components } from "./api.d.ts";

type Schemas = components["schemas"];
export type Meta = Schemas["Meta"];
export type ErrorDetail = Schemas["ErrorDetail"];
/** The code of every error envelope the contract states. */
export type ErrorCode = { [Name in keyof Schemas]: Schemas[Name] extends { error: { code: infer Code } } ? Code : never }[keyof Schemas];
/** An error's meta: the balance and window are absent when the key was not known (401). */
export type ErrorMeta = { request_id: string; credits_used: 0; credits_remaining?: number; rate_limit?: Meta["rate_limit"] };

/** Anything a call of this client throws. Its `name` is its class's. */
export class CeiError extends Error {
  constructor(message: string, options?: ErrorOptions) {
    super(message, options);
    this.name = new.target.name;
  }
}

/** The API answered with its error envelope. */
export class CeiApiError extends CeiError {
  readonly status: number;
  readonly code: ErrorCode;
  /** `INVALID_REQUEST` only: every problem found, each naming the parameter (`path`). */
  readonly details: readonly ErrorDetail[] | undefined;
  readonly meta: ErrorMeta;
  /** Also `meta.request_id`: quote it when reporting a problem. */
  readonly requestId: string;

  constructor(status: number, body: { error: { code: ErrorCode; message: string; details?: ErrorDetail[] }; meta: ErrorMeta }) {
    super(body.error.message);
    this.status = status;
    this.code = body.error.code;
    this.details = body.error.details;
    this.meta = body.meta;
    this.requestId = body.meta.request_id;
  }
}

/** 401: no key, or not one the service knows. Not retried. */
export class InvalidApiKeyError extends CeiApiError {}
/** 402: the balance is below the operation's cost (the message names both). Never retried. */
export class InsufficientCreditsError extends CeiApiError {}
/** 403: the key is disabled or revoked, or lacks the operation's scope. Not retried. */
export class ForbiddenError extends CeiApiError {}
/** 404: no such record (or a served record without the part asked for: the message says which). */
export class NotFoundError extends CeiApiError {}
/** 422: `details` names every problem with the parameters or body. Not retried. */
export class InvalidRequestError extends CeiApiError {}
/** 429 after the client's retries, or when `Retry-After` is longer than it is willing to wait. */
export class RateLimitedError extends CeiApiError {
  /** Whole seconds until the key's window ends (`Retry-After`). */
  readonly retryAfterSeconds: number;

  constructor(status: number, body: ConstructorParameters<typeof CeiApiError>[1], retryAfterSeconds: number) {
    super(status, body);
    this.retryAfterSeconds = retryAfterSeconds;
  }
}
/** 500: stale data or a fault in the service; the message says which. Not retried. */
export class InternalError extends CeiApiError {}

/** The connection failed (refused, reset, closed) on every attempt. */
export class CeiConnectionError extends CeiError {}

/** No whole answer arrived within the timeout. Not retried: the service may have answered and charged. */
export class CeiTimeoutError extends CeiError {}

/** The class of each error code: the contract's closed set (a test compares it with the document). */
export const errorClasses = {
  INVALID_API_KEY: InvalidApiKeyError,
  INSUFFICIENT_CREDITS: InsufficientCreditsError,
  FORBIDDEN: ForbiddenError,
  NOT_FOUND: NotFoundError,
  INVALID_REQUEST: InvalidRequestError,
  RATE_LIMITED: RateLimitedError,
  INTERNAL_ERROR: InternalError,
} as const satisfies Record<ErrorCode, unknown>;
