// GET /llms.txt (decision 38): a plain-text index of the API for language models and agents, in
// the llmstxt.org layout (a title, a one-paragraph summary, then sections of links with notes).
// It renders the published operations of the OpenAPI document the server serves (which buildOpenApi
// derives from the route table, the policy table and the operations' own request schemas), in the
// route table's order, so an operation added to routes.ts appears here with nothing else to do.
// Reading the served document rather than building it again keeps this to a few milliseconds.
import { MAX_BODY_BYTES } from "../_body.ts";
import { documentedRoutes, openApiPath, type OpenApiDocument } from "../openapi/document.ts";
import { RATE_WINDOW_MS, tierRateLimits, tiers } from "../policy.ts";
import { publicRoutes } from "../public-routes.ts";
import type { Route } from "../routes.ts";
import { referencePaths } from "./paths.ts";

type JsonSchema = Record<string, unknown>;

interface DocumentedOperation {
  "x-scope": string | null;
  "x-credit-cost": number;
  parameters: Array<{ name: string; in: string; required: boolean; schema: JsonSchema }>;
  requestBody?: { content: { "application/json": { schema: JsonSchema } } };
}

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

function _operationLine(route: Route, operation: DocumentedOperation): string {
  const scope = operation["x-scope"];
  const path = openApiPath(route.path);
  const inputs: string[] = [];
  for (const parameter of operation.parameters) {
    const required = parameter.in === "query" && parameter.required ? "required, " : "";
    inputs.push(`${parameter.in} \`${parameter.name}\` (${required}${describeValue(parameter.schema)})`);
  }
  const body = operation.requestBody?.content["application/json"].schema;
  if (body !== undefined) {
    const required = new Set((body.required as string[] | undefined) ?? []);
    for (const [name, schema] of Object.entries((body.properties ?? {}) as Record<string, JsonSchema>)) {
      inputs.push(`body \`${name}\` (${required.has(name) ? "required, " : ""}${describeValue(schema)})`);
    }
  }
  const needs = scope === null ? "no scope" : `scope \`${scope}\``;
  const takes = inputs.length === 0 ? "No parameters." : `Takes ${inputs.join("; ")}.`;
  return `- [${route.operation}](${_pointer(path, route.method)}): \`${route.method} ${path}\`. ${_credits(operation["x-credit-cost"])}, ${needs}. ${takes}`;
}

/** The text of /llms.txt for the operations this server publishes, from the document it serves. */
export function buildLlmsTxt(document: OpenApiDocument, options: { releaseTrendingProjects: boolean }): string {
  const paths = document.paths as Record<string, Record<string, DocumentedOperation>>;
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
    ...documentedRoutes(options.releaseTrendingProjects).map((route) => _operationLine(route, paths[openApiPath(route.path)]![route.method.toLowerCase()]!)),
    "",
    "## Free paths",
    "",
    "No key, never metered, cost 0.",
    "",
    ...free,
    "",
  ].join("\n");
}
