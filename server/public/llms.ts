// GET /llms.txt (decision 38): a plain-text index of the API for language models and agents, in
// the llmstxt.org layout (a title, a one-paragraph summary, then sections of links with notes).
// Generated from the route table, the policy table and the operations' own request schemas, as
// docs/openapi.json is, so an operation added to routes.ts appears here with nothing else to do.
import type { z } from "zod";
import { MAX_BODY_BYTES } from "../_body.ts";
import { documentedRoutes, openApiPath } from "../openapi/document.ts";
import { inlineSchema, objectFields, type JsonSchema } from "../openapi/_schemas.ts";
import { operationPolicy, RATE_WINDOW_MS, tierRateLimits, tiers } from "../policy.ts";
import { publicRoutes } from "../public-routes.ts";
import type { Route } from "../routes.ts";
import { referencePaths } from "./paths.ts";

/** `{"type":"integer","minimum":1,"maximum":20,"default":10}` → `integer 1-20, default 10`. */
export function describeValue(schema: JsonSchema): string {
  const parts: string[] = [];
  if (Array.isArray(schema.enum)) parts.push(`one of ${schema.enum.map((value) => `\`${String(value)}\``).join(", ")}`);
  else if (schema.type === "array") parts.push(`array of ${describeValue((schema.items ?? {}) as JsonSchema)}`);
  else if (schema.type === "integer" || schema.type === "number") {
    const range = schema.minimum !== undefined && schema.maximum !== undefined ? ` ${String(schema.minimum)}-${String(schema.maximum)}` : "";
    parts.push(`${schema.type}${range}`);
  } else {
    let text = String(schema.type ?? "value");
    if (schema.minLength !== undefined && schema.maxLength !== undefined) {
      text += schema.minLength === schema.maxLength ? ` of ${String(schema.minLength)} characters` : ` of ${String(schema.minLength)}-${String(schema.maxLength)} characters`;
    }
    if (typeof schema.pattern === "string") text += ` matching \`${schema.pattern}\``;
    parts.push(text);
  }
  if (schema.type === "array" && schema.maxItems !== undefined) parts.push(`at most ${String(schema.maxItems)}`);
  if (schema.default !== undefined) parts.push(`default \`${typeof schema.default === "string" ? schema.default : JSON.stringify(schema.default)}\``);
  return parts.join(", ");
}

const _credits = (cost: number) => (cost === 1 ? "1 credit" : `${cost} credits`);
/** The operation in the document, as a URI fragment holding a JSON pointer (RFC 6901, section 6). */
const _pointer = (path: string, method: string) =>
  `/openapi.json#/paths/${encodeURIComponent(path.replaceAll("~", "~0").replaceAll("/", "~1"))}/${method.toLowerCase()}`;

function _operationLine(route: Route): string {
  const { scope, cost } = operationPolicy[route.operation];
  const path = openApiPath(route.path);
  const request = route.handler.request as z.ZodObject<{ params: z.ZodType; query: z.ZodType; body?: z.ZodType }>;
  const inputs: string[] = [];
  for (const field of objectFields(request.shape.params)) inputs.push(`path \`${field.name}\` (${describeValue(field.schema)})`);
  for (const field of objectFields(request.shape.query)) {
    inputs.push(`query \`${field.name}\` (${field.required ? "required, " : ""}${describeValue(field.schema)})`);
  }
  if (request.shape.body !== undefined) {
    const body = inlineSchema(request.shape.body, "input");
    const required = new Set((body.required as string[] | undefined) ?? []);
    for (const [name, schema] of Object.entries((body.properties ?? {}) as Record<string, JsonSchema>)) {
      inputs.push(`body \`${name}\` (${required.has(name) ? "required, " : ""}${describeValue(schema)})`);
    }
  }
  const needs = scope === null ? "no scope" : `scope \`${scope}\``;
  const takes = inputs.length === 0 ? "No parameters." : `Takes ${inputs.join("; ")}.`;
  return `- [${route.operation}](${_pointer(path, route.method)}): \`${route.method} ${path}\`. ${_credits(cost)}, ${needs}. ${takes}`;
}

/** The text of /llms.txt for the operations this server publishes. */
export function buildLlmsTxt(options: { releaseTrendingProjects: boolean }): string {
  const limits = tiers.map((tier) => `\`${tier}\` ${tierRateLimits[tier]}`).join(", ");
  const free = [
    ...publicRoutes.map((route) => `- \`GET ${route.path}\`: ${route.summary}.`),
    ...referencePaths.map((reference) => `- [\`GET ${reference.path}\`](${reference.path}): ${reference.summary}.`),
  ];
  return [
    "# Curated Entity Intelligence API (cei)",
    "",
    "> Curated, source-free facts about Web3 projects, tokens, funds, people, stocks, news stories, in-person events and X accounts, as read-only JSON over HTTP. Every operation needs an API key; each success costs the credits given with it, and errors cost nothing.",
    "",
    "- Authentication: send `Authorization: Bearer <API_KEY>` with every request under `/v1`. Without a valid key every path answers 401.",
    "- Answers: `{\"data\": ..., \"meta\": ...}` on success and `{\"error\": {\"code\", \"message\", \"details\"?}, \"meta\": ...}` on error. `meta.credits_used` is what the call cost, `meta.credits_remaining` the balance left, `meta.rate_limit` the key's window.",
    `- Rate limits: requests per ${RATE_WINDOW_MS / 1000}-second window, by tier: ${limits}. A 429 carries \`Retry-After\` (whole seconds); wait that long, then retry.`,
    "- Errors: 401 `INVALID_API_KEY`, 402 `INSUFFICIENT_CREDITS` (the message names the cost and the balance; do not retry before the key is credited), 403 `FORBIDDEN`, 404 `NOT_FOUND`, 422 `INVALID_REQUEST` (`error.details` names each bad parameter), 429 `RATE_LIMITED`, 500 `INTERNAL_ERROR`.",
    `- Search bodies are \`application/json\`, at most ${MAX_BODY_BYTES} bytes. Unknown or repeated parameters are refused with 422.`,
    "- The whole contract, with every field, range and error: the [OpenAPI 3.1 document](/openapi.json); the same as a [reference page](/docs).",
    "",
    "## Operations",
    "",
    ...documentedRoutes(options.releaseTrendingProjects).map(_operationLine),
    "",
    "## Free paths",
    "",
    "No key, never metered, cost 0.",
    "",
    ...free,
    "",
  ].join("\n");
}
