// The one error type of the API: a closed set of codes, one HTTP status per code.

export const errorCodes = [
  "INVALID_API_KEY",
  "INSUFFICIENT_CREDITS",
  "FORBIDDEN",
  "NOT_FOUND",
  "INVALID_REQUEST",
  "RATE_LIMITED",
  "INTERNAL_ERROR",
] as const;
export type ErrorCode = (typeof errorCodes)[number];

/** NOT_FOUND is 404 (product decision 5); the rest are fixed by the API spec. */
export const codeToStatus: Record<ErrorCode, number> = {
  INVALID_API_KEY: 401,
  INSUFFICIENT_CREDITS: 402,
  FORBIDDEN: 403,
  NOT_FOUND: 404,
  INVALID_REQUEST: 422,
  RATE_LIMITED: 429,
  INTERNAL_ERROR: 500,
};

/** One item of `error.details` (INVALID_REQUEST only). `path` names the parameter or body field. */
export interface ErrorDetail {
  path: string;
  message: string;
  code: string;
}

/** Default messages: every error a caller can receive is worded here. */
export const defaultMessages: Record<ErrorCode, string> = {
  INVALID_API_KEY: "A valid API key is required: send `Authorization: Bearer <API_KEY>`.",
  INSUFFICIENT_CREDITS: "The API key does not have enough credits for this operation: the message names its cost and the key's balance.",
  FORBIDDEN: "The API key is not allowed to call this operation.",
  NOT_FOUND: "The requested resource was not found.",
  INVALID_REQUEST: "The request is invalid; see error.details.",
  RATE_LIMITED: "Rate limit exceeded; retry after the time given in Retry-After.",
  INTERNAL_ERROR: "The request could not be completed.",
};

export class ApiError extends Error {
  readonly code: ErrorCode;
  readonly status: number;
  readonly details: readonly ErrorDetail[] | undefined;

  constructor(code: ErrorCode, message: string = defaultMessages[code], details?: readonly ErrorDetail[]) {
    super(message);
    this.name = "ApiError";
    this.code = code;
    this.status = codeToStatus[code];
    this.details = details;
  }
}

export function invalidRequest(details: readonly ErrorDetail[]): ApiError {
  return new ApiError("INVALID_REQUEST", defaultMessages.INVALID_REQUEST, details);
}

// Shared instances for the errors that carry no per-request information.
/**
 * No such route, and no such record: an absent, hidden, deleted or ineligible record answers
 * exactly as an unknown path does (decisions 5 and 32), so an answer never tells them apart.
 */
export const notFound = new ApiError("NOT_FOUND");

/**
 * Decision 32: a record that is served, without the part an operation asks for. The message says
 * which part (`The project has no fresh TVL snapshot.`); the record itself is then known to exist,
 * so this is only ever answered when the record would be served by its own detail operation.
 * An operation declares each one it may answer (`OperationDefinition.missingParts`), so that the
 * contract lists them and the tests reach each one.
 */
export function missingPart(record: string, part: string): ApiError {
  return new ApiError("NOT_FOUND", `The ${record} has no ${part}.`);
}

const _credits = (n: number) => (n === 1 ? "1 credit" : `${n} credits`);
const _insufficient = new Map<string, ApiError>();

/**
 * Decision 32: a 402 names the operation's cost and the balance. The balance is below the cost,
 * and costs are small, so there are few distinct answers: each is made once.
 */
export function insufficientCredits(cost: number, balance: number): ApiError {
  const key = `${cost}:${balance}`;
  let error = _insufficient.get(key);
  if (error === undefined) {
    const message = `This operation costs ${_credits(cost)}; the API key has ${_credits(balance)}. Ask the operator to credit the key.`;
    error = new ApiError("INSUFFICIENT_CREDITS", message);
    if (balance < cost) _insufficient.set(key, error);
  }
  return error;
}
export const staleData = new ApiError("INTERNAL_ERROR", "The data behind this operation is not fresh enough to be served.");

/** Decision 28: trending signals were curated for past days only, never for the live window. */
export const noLiveTrending = new ApiError(
  "NOT_FOUND",
  "No live trending ranking is curated: ask for one of the previous 30 UTC days with the date parameter.",
);

/** A dated trending request inside the window for a day the loaded snapshot has no ranking of. */
export function noTrendingRanking(date: string): ApiError {
  return new ApiError("INTERNAL_ERROR", `No trending ranking was compiled for ${date}.`);
}
