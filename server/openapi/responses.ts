// The responses of the document: which errors an operation can give, and each response's headers.
import { z } from "zod";
import { keyKnownOn, responseHeaders } from "../envelope.ts";
import { codeToStatus, defaultMessages, errorCodes, type ErrorCode } from "../errors.ts";
import { inlineSchema, type JsonSchema } from "./_schemas.ts";

/** `INVALID_API_KEY` → `InvalidApiKey`; `get_project` → `GetProject`. */
export function pascalCase(name: string): string {
  return name.toLowerCase().split("_").map((word) => word.charAt(0).toUpperCase() + word.slice(1)).join("");
}

export const errorResponseName = (code: ErrorCode) => pascalCase(code);

/**
 * Component names, from the operation ids and error codes alone, chosen so that no mainstream
 * generator makes the same name for a type of its own: @hey-api/openapi-ts names an operation's
 * types `<Op>Data`, `<Op>Response(s)` and `<Op>Error(s)`, orval `<Op>Params`, `<Op>Body` and
 * `<Op><Param>`, and either renames ours (`GetProjectResponse2`) or collides when they meet.
 * `.ci/generators.sh` runs openapi-typescript, @hey-api/openapi-ts and orval on the document and
 * fails on any renamed or missing component.
 */
export const componentName = {
  /** The `data` of an operation's success: `GetProjectResult`. */
  result: (operation: string) => `${pascalCase(operation)}Result`,
  /** An operation's whole success body, `{data, meta}`: `GetProjectEnvelope`. */
  envelope: (operation: string) => `${pascalCase(operation)}Envelope`,
  /** An error's whole body, `{error, meta}`: `NotFoundEnvelope`. */
  errorEnvelope: (response: string) => `${response}Envelope`,
};

/** The 429 of the reference paths' per-client budget: no key, so no balance or window. */
export const PUBLIC_RATE_LIMITED = "PublicRateLimited";

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

const referenceHeaderSchemas = {
  "Cache-Control": z.literal("no-cache").describe("May be kept, but revalidated: send `If-None-Match` with the `ETag` for a 304."),
  ETag: z.string().regex(/^"[0-9a-f]{16}(-br|-gz)?"$/).describe("Names the bytes sent: a hash of the content and the encoding."),
  Vary: z.literal("Accept-Encoding").describe("Sent in brotli or gzip when `Accept-Encoding` allows it."),
  "x-service-request-id": responseHeaders.always["x-service-request-id"],
};

/** The reference paths (/openapi.json, /docs, /llms.txt): revalidated, negotiated, no key headers. */
export function referenceHeaders(): Record<string, JsonSchema> {
  return _headers([[referenceHeaderSchemas, true], [responseHeaders.snapshot, false]]);
}

/** The public paths: no key headers; the snapshot only while one is loaded. */
export function publicHeaders(): Record<string, JsonSchema> {
  const { "x-service-credits-used": _credits, ...always } = responseHeaders.always;
  return _headers([[always, true], [responseHeaders.snapshot, false]]);
}

/**
 * An error's headers. The answers that may come before the app (the listener's 422s and 429s) or
 * instead of it (a 500) may lack the snapshot: `from: "listener"`.
 */
export function errorHeaders(code: ErrorCode, keyKnown = keyKnownOn[code], from: "app" | "listener" = keyKnown === "maybe" ? "listener" : "app"): Record<string, JsonSchema> {
  const groups: Array<readonly [Record<string, z.ZodType>, boolean]> = [[responseHeaders.always, true], [responseHeaders.snapshot, from === "app"]];
  if (keyKnown !== "never") groups.push([responseHeaders.keyKnown, keyKnown === "always"]);
  if (code === "RATE_LIMITED") groups.push([responseHeaders.rateLimited, true]);
  return _headers(groups);
}

/**
 * components.responses: one per error code, with its envelope, headers and (when given) example,
 * and the reference paths' 429.
 */
export function errorResponses(hasExample: (name: string) => boolean): Record<string, JsonSchema> {
  const out: Record<string, JsonSchema> = {};
  for (const code of errorCodes) {
    const name = errorResponseName(code);
    const media: JsonSchema = { schema: { $ref: `#/components/schemas/${componentName.errorEnvelope(name)}` } };
    if (hasExample(name)) media.examples = { sample: { $ref: `#/components/examples/${name}` } };
    out[name] = {
      description: `HTTP ${codeToStatus[code]} \`${code}\`: ${defaultMessages[code]}`,
      headers: errorHeaders(code),
      content: { "application/json": media },
    };
  }
  out[PUBLIC_RATE_LIMITED] = {
    description: `HTTP 429 \`RATE_LIMITED\`: this client address asked for the reference paths too often (30 at once, then 2 a second); sent after a second. No key is involved: \`meta\` holds no balance or window.`,
    headers: errorHeaders("RATE_LIMITED", "never", "listener"),
    content: { "application/json": { schema: { $ref: `#/components/schemas/${componentName.errorEnvelope(PUBLIC_RATE_LIMITED)}` } } },
  };
  return out;
}
