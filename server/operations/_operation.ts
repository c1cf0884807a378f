// What one operation file exports: its request schema, its strict response schema, and a
// factory that prepares its statements once and returns the per-request handler.
import type Database from "better-sqlite3";
import type { z } from "zod";
import { ApiError, type ErrorDetail } from "../errors.ts";
import type { OperationId } from "../policy.ts";
import { issuesToDetails, requestIssuePredicate, type RawRequest } from "../_request.ts";

export interface OperationDeps {
  snapshot: Database.Database;
  /** ms since the epoch; the only clock an operation may read. */
  now: () => number;
}

/**
 * The side-effect-free outcome of an operation. `invalid` and `not_found` carry the error to send
 * if the meter lets the request get that far (decision 3); stale data travels as `not_found`, so
 * that it is answered after the rate-limit and credit checks without charging.
 */
export type OperationResult =
  | { outcome: "ok"; data: unknown }
  | { outcome: "invalid" | "not_found"; error: ApiError };

export type OperationHandler = (raw: RawRequest, problems: ErrorDetail[]) => OperationResult;

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
  /** Runs once per app: prepare statements here. The returned function runs per request. */
  prepare(deps: OperationDeps): (request: z.output<Req>) => z.output<Res> | ApiError;
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
      const request = definition.request;
      return (raw, problems) => {
        const parsed = request.safeParse(raw, { error: requestIssuePredicate });
        if (!parsed.success) issuesToDetails(parsed.error.issues, problems);
        if (problems.length > 0) return { outcome: "invalid", error: new ApiError("INVALID_REQUEST", undefined, problems) };
        const result = run(parsed.data as z.output<Req>);
        if (result instanceof ApiError) {
          return { outcome: result.code === "INVALID_REQUEST" ? "invalid" : "not_found", error: result };
        }
        return { outcome: "ok", data: result };
      };
    },
  };
}

/** A problem found by an operation's own checks (after the schema), as a 422; `message` is a whole sentence. */
export function invalidParameter(path: string, message: string, code: string): ApiError {
  return new ApiError("INVALID_REQUEST", undefined, [{ path, message, code }]);
}
