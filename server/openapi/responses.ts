// The responses of the document: which errors an operation can give, and each response's headers.
import type { z } from "zod";
import { responseHeaders } from "../envelope.ts";
import { codeToStatus, defaultMessages, errorCodes, type ErrorCode } from "../errors.ts";
import { inlineSchema, type JsonSchema } from "./_schemas.ts";

/** `INVALID_API_KEY` → `InvalidApiKey`; `get_project` → `GetProject`. */
export function pascalCase(name: string): string {
  return name.toLowerCase().split("_").map((word) => word.charAt(0).toUpperCase() + word.slice(1)).join("");
}

export const errorResponseName = (code: ErrorCode) => pascalCase(code);

/**
 * The errors of one operation. Every operation can meet the key, scope, rate-limit, validation
 * (unknown parameters at least) and internal checks; 402 needs a cost; NOT_FOUND is listed where
 * the path names a record (decision 3 and the spec's error table), and where the operation reads
 * curated data, since a snapshot that curates none of it does not offer it (decision 28).
 */
export function errorsOf(operation: { cost: number; hasPathIdentifier: boolean; readsCurated: boolean }): ErrorCode[] {
  return errorCodes.filter((code) => {
    if (code === "INSUFFICIENT_CREDITS") return operation.cost > 0;
    if (code === "NOT_FOUND") return operation.hasPathIdentifier || operation.readsCurated;
    return true;
  });
}

/**
 * Whether the key's balance and window headers are sent: never without a key (401); always after
 * the meter answered; possibly not on a 422 refused before routing (oversized headers) or a 500.
 */
const keyHeadersOn: Record<ErrorCode, "no" | "always" | "maybe"> = {
  INVALID_API_KEY: "no",
  INSUFFICIENT_CREDITS: "always",
  FORBIDDEN: "always",
  NOT_FOUND: "always",
  INVALID_REQUEST: "maybe",
  RATE_LIMITED: "always",
  INTERNAL_ERROR: "maybe",
};

function _headers(groups: ReadonlyArray<readonly [Record<string, z.ZodType>, boolean]>): Record<string, JsonSchema> {
  const out: Record<string, JsonSchema> = {};
  for (const [group, required] of groups) {
    for (const [name, schema] of Object.entries(group)) {
      const { description, ...valueSchema } = inlineSchema(schema, "output");
      out[name] = { description, required, schema: valueSchema };
    }
  }
  return out;
}

export function successHeaders(): Record<string, JsonSchema> {
  return _headers([[responseHeaders.always, true], [responseHeaders.snapshot, true], [responseHeaders.keyKnown, true]]);
}

/** The public paths: no key headers; the snapshot only while one is loaded. */
export function publicHeaders(): Record<string, JsonSchema> {
  const { "x-service-credits-used": _credits, ...always } = responseHeaders.always;
  return _headers([[always, true], [responseHeaders.snapshot, false]]);
}

export function errorHeaders(code: ErrorCode): Record<string, JsonSchema> {
  // The answers that may come before the app (the listener's 422s) or instead of it (a 500) may lack the snapshot.
  const groups: Array<readonly [Record<string, z.ZodType>, boolean]> = [[responseHeaders.always, true], [responseHeaders.snapshot, keyHeadersOn[code] !== "maybe"]];
  if (keyHeadersOn[code] !== "no") groups.push([responseHeaders.keyKnown, keyHeadersOn[code] === "always"]);
  if (code === "RATE_LIMITED") groups.push([responseHeaders.rateLimited, true]);
  return _headers(groups);
}

/** components.responses: one per error code, with its envelope, headers and (when given) example. */
export function errorResponses(hasExample: (name: string) => boolean): Record<string, JsonSchema> {
  const out: Record<string, JsonSchema> = {};
  for (const code of errorCodes) {
    const name = errorResponseName(code);
    const media: JsonSchema = { schema: { $ref: `#/components/schemas/${name}Error` } };
    if (hasExample(name)) media.examples = { sample: { $ref: `#/components/examples/${name}` } };
    out[name] = {
      description: `HTTP ${codeToStatus[code]} \`${code}\`: ${defaultMessages[code]}`,
      headers: errorHeaders(code),
      content: { "application/json": media },
    };
  }
  return out;
}
