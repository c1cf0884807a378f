// The OpenAPI 3.1 document of the API, derived from the route table, the policy table and the
// operations' own zod schemas: a pure function of those and of the examples it is given.
// `cei openapi` writes it to docs/openapi.json; the server serves it at /openapi.json.
import type { z } from "zod";
import { errorEnvelope, meta, rateLimitInfo, errorDetail, successEnvelope } from "../envelope.ts";
import { codeToStatus, errorCodes, type ErrorCode } from "../errors.ts";
import { MAX_BODY_BYTES } from "../_body.ts";
import { operationPolicy, operationSources, RATE_WINDOW_MS, scopes, tierRateLimits, tiers, type Scope } from "../policy.ts";
import { routes, type Route } from "../routes.ts";
import { publicRoutes, type PublicRoute } from "../public-routes.ts";
import { referencePaths, type ReferencePath } from "../public/paths.ts";
import {
  componentName, errorResponseName, errorResponses, errorsOf, PUBLIC_RATE_LIMITED, publicHeaders, referenceHeaders, successHeaders,
} from "./responses.ts";
import { componentSchemas, inlineSchema, objectFields, type JsonSchema } from "./_schemas.ts";

export const API_VERSION = "1.0.0-beta";

export interface OpenApiInput {
  /** Documents the hidden operation 10 (GET /v1/projects/trending). */
  releaseTrendingProjects: boolean;
  /**
   * Real answers, by name: an operation id for its 200 body, an error response name
   * (`InvalidApiKey`, `RateLimited`, ...) for that error's body. Names without an example get none.
   */
  examples: Readonly<Record<string, unknown>>;
}

export interface OpenApiDocument {
  [field: string]: unknown;
  components: { [field: string]: unknown; examples: Record<string, { value: unknown }> };
}

/** The published routes: the hidden one only when released. */
export function documentedRoutes(releaseTrendingProjects: boolean): Route[] {
  return routes.filter((route) => route.release === undefined || releaseTrendingProjects);
}

/** `/v1/people/:slug/roles` → `/v1/people/{slug}/roles`. */
export const openApiPath = (path: string) => path.replace(/:([A-Za-z_]+)/g, "{$1}");

/** Scopes are the spec's area tags in lower case (decision 8): `x_accounts` → `X Accounts`. */
function _tagOf(scope: Scope | null): string {
  if (scope === null) return "Keys";
  return scope.split("_").map((word) => (word === "x" ? "X" : word.charAt(0).toUpperCase() + word.slice(1))).join(" ");
}

const _summaryOf = (operation: string) => {
  const words = operation.replaceAll("_", " ");
  return words.charAt(0).toUpperCase() + words.slice(1);
};

function _credits(cost: number): string {
  return cost === 1 ? "1 credit" : `${cost} credits`;
}

function _operation(route: Route, examples: OpenApiInput["examples"]): JsonSchema {
  const policy: { scope: Scope | null; cost: number } = operationPolicy[route.operation];
  const request = route.handler.request as z.ZodObject<{ params: z.ZodType; query: z.ZodType; body?: z.ZodType }>;
  const parameters = [
    ...objectFields(request.shape.params).map((field) => ({ name: field.name, in: "path", required: true, schema: field.schema })),
    ...objectFields(request.shape.query).map((field) => ({ name: field.name, in: "query", required: field.required, schema: field.schema })),
  ];
  const hasPathIdentifier = route.path.includes(":");
  const success: JsonSchema = { schema: { $ref: `#/components/schemas/${componentName.envelope(route.operation)}` } };
  if (Object.hasOwn(examples, route.operation)) success.examples = { sample: { $ref: `#/components/examples/${route.operation}` } };
  const responses: Record<string, JsonSchema> = {
    "200": {
      description: `Success. ${_credits(policy.cost)} charged.`,
      headers: successHeaders(),
      content: { "application/json": success },
    },
  };
  for (const code of errorsOf({ cost: policy.cost, hasPathIdentifier, readsCurated: operationSources[route.operation].length > 0 })) {
    responses[String(codeToStatus[code])] = { $ref: `#/components/responses/${errorResponseName(code)}` };
  }
  const missing = route.handler.missingParts.map((error) => `"${error.message}"`);
  const description = [
    policy.scope === null ? "Needs no scope." : `Needs the \`${policy.scope}\` scope.`,
    `Costs ${_credits(policy.cost)} per successful call; errors cost nothing.`,
    ...(policy.cost > 0 ? ["A 402's message names this cost and the key's balance."] : []),
    ...(hasPathIdentifier ? ["A record that is absent, hidden, deleted or ineligible answers 404 exactly as an unknown path does."] : []),
    ...(missing.length > 0 ? [`A record that is served without the part asked for answers 404 saying so: ${missing.join(", ")}.`] : []),
    ...(operationSources[route.operation].length === 0 ? [] : ["A snapshot that curates none of the data it reads does not offer it: 404, exactly as an unknown route."]),
    request.shape.body === undefined
      ? "Unknown or repeated query parameters are refused with 422."
      : `The body is \`application/json\`, at most ${MAX_BODY_BYTES} bytes; unknown fields are refused with 422.`,
  ].join(" ");
  const operation: JsonSchema = {
    operationId: route.operation,
    summary: _summaryOf(route.operation),
    description,
    tags: [_tagOf(policy.scope)],
    "x-scope": policy.scope,
    "x-credit-cost": policy.cost,
    parameters,
  };
  if (request.shape.body !== undefined) {
    operation.requestBody = { required: true, content: { "application/json": { schema: inlineSchema(request.shape.body, "input") } } };
  }
  operation.responses = responses;
  return operation;
}

const _description = () => `Curated, source-free facts about Web3 projects, tokens, funds, people, stocks, news stories, in-person events and X accounts.

Every request needs \`Authorization: Bearer <API_KEY>\`. Every answer is JSON: \`{data, meta}\` on success, \`{error: {code, message, details?}, meta}\` on error, with \`Cache-Control: no-store\` and \`x-service-request-id\`.

**Credits.** Each operation costs the credits given with it (\`x-credit-cost\`); errors never charge (\`meta.credits_used\` is 0).

**Rate limits.** Requests per ${RATE_WINDOW_MS / 1000}-second window, by tier: ${tiers.map((tier) => `\`${tier}\` ${tierRateLimits[tier]}`).join(", ")}. Every request of an active key counts, valid or not, on any path (unknown routes and out-of-scope calls included).

**Check order.** 401 key, 403 disabled, revoked or expired key, 429 rate limit, 404 unknown route, 403 missing scope, 422 invalid request, 402 credits, 404 record, then 200.

**Any other path or method** (including HEAD and OPTIONS) answers \`401 INVALID_API_KEY\` without a valid key, \`403 FORBIDDEN\` with a disabled, revoked or expired one, \`429 RATE_LIMITED\` when the key's window is used up, and \`404 NOT_FOUND\` otherwise, in the same error envelopes.`;

const PUBLIC_DESCRIPTION = "Needs no key and is never metered: costs nothing. Answers nothing beyond the public contract and the loaded snapshot's content hash, `as_of` times and freshness. A request the HTTP layer cannot accept (headers over 16 KiB, not valid HTTP/1.1, too slow) gets the 422 error envelope, as on every path.";

/** What every path outside /v1 shares (decision 19): no key, no scope, cost 0. */
function _free(operationId: string, summary: string, description: string, responses: Record<string, JsonSchema>): JsonSchema {
  // What the HTTP layer answers by itself to any request (headers too large, not HTTP, too slow).
  responses[String(codeToStatus.INVALID_REQUEST)] = { $ref: `#/components/responses/${errorResponseName("INVALID_REQUEST")}` };
  return { operationId, summary, description, tags: [PUBLIC_TAG], security: [], "x-scope": null, "x-credit-cost": 0, responses };
}

/** Health and readiness: JSON, `no-store`. */
function _publicOperation(route: PublicRoute): JsonSchema {
  const responses: Record<string, JsonSchema> = {};
  for (const [status, { description, body }] of Object.entries(route.responses)) {
    responses[status] = { description, headers: publicHeaders(), content: { "application/json": { schema: inlineSchema(body, "output") } } };
  }
  return _free(route.path.slice(1), route.summary, PUBLIC_DESCRIPTION, responses);
}

/** The document, the page and llms.txt: revalidated with an ETag, compressed on request, a per-client budget. */
function _referenceOperation(reference: ReferencePath): JsonSchema {
  const mediaType = reference.contentType.split(";")[0]!;
  const body: JsonSchema = mediaType === "application/json"
    ? { schema: { type: "object", description: "This document." } }
    : { schema: { type: "string" } };
  const responses: Record<string, JsonSchema> = {
    "200": { description: "The current version.", headers: referenceHeaders(), content: { [mediaType]: body } },
    "304": { description: "The client's copy (`If-None-Match`) is current; no body.", headers: referenceHeaders() },
    "429": { $ref: `#/components/responses/${PUBLIC_RATE_LIMITED}` },
  };
  const description = `${PUBLIC_DESCRIPTION} Each client address may ask for the reference paths 30 times at once and twice a second after that.`;
  return _free(reference.operationId, reference.summary, description, responses);
}

const PUBLIC_TAG = "Service";

export function buildOpenApi(input: OpenApiInput): OpenApiDocument {
  const published = documentedRoutes(input.releaseTrendingProjects);
  const paths: Record<string, Record<string, JsonSchema>> = {};
  for (const route of published) {
    const path = openApiPath(route.path);
    (paths[path] ??= {})[route.method.toLowerCase()] = _operation(route, input.examples);
  }

  for (const route of publicRoutes) paths[route.path] = { get: _publicOperation(route) };
  for (const reference of referencePaths) paths[reference.path] = { get: _referenceOperation(reference) };

  const named: Array<readonly [string, z.ZodType]> = [["Meta", meta], ["RateLimit", rateLimitInfo], ["ErrorDetail", errorDetail]];
  for (const code of errorCodes) named.push([componentName.errorEnvelope(errorResponseName(code)), errorEnvelope(code)]);
  named.push([componentName.errorEnvelope(PUBLIC_RATE_LIMITED), errorEnvelope("RATE_LIMITED", "never")]);
  for (const route of published) {
    named.push([componentName.result(route.operation), route.handler.response], [componentName.envelope(route.operation), successEnvelope(route.handler.response)]);
  }

  const exampleNames = [...published.map((route) => route.operation), ...errorCodes.map((code: ErrorCode) => errorResponseName(code))];
  const examples: Record<string, { summary: string; value: unknown }> = {};
  for (const name of exampleNames) {
    if (Object.hasOwn(input.examples, name)) examples[name] = { summary: "A real answer from the bundled sample", value: input.examples[name] };
  }

  const tagNames = [...new Set(published.map((route) => _tagOf(operationPolicy[route.operation].scope)))];
  const scopeOfTag = new Map(scopes.map((scope) => [_tagOf(scope), scope]));
  return {
    openapi: "3.1.0",
    info: {
      title: "Curated Entity Intelligence API",
      version: API_VERSION,
      description: _description(),
      license: { name: "Proprietary", identifier: "LicenseRef-Proprietary" },
    },
    // Relative: the server that serves this document (OpenAPI 3.1, 4.8.5.1), so a client generated
    // from any deployment's /openapi.json calls that deployment; the file is served byte for byte.
    servers: [{ url: "/", description: "The server this document was fetched from (`npm start` serves it at http://127.0.0.1:8787/openapi.json)." }],
    security: [{ bearerAuth: [] }],
    tags: [
      ...tagNames.map((name) => ({
        name,
        description: scopeOfTag.has(name) ? `Operations that need the \`${scopeOfTag.get(name)}\` scope.` : "Operations that need no scope.",
      })),
      { name: PUBLIC_TAG, description: "Health, readiness, this document, the reference page and llms.txt, outside `/v1`: no key, never metered, cost 0." },
    ],
    paths,
    components: {
      securitySchemes: {
        bearerAuth: { type: "http", scheme: "bearer", description: "An API key, sent as `Authorization: Bearer <API_KEY>`." },
      },
      schemas: componentSchemas(named),
      responses: errorResponses((name) => Object.hasOwn(examples, name)),
      examples,
    },
  };
}
