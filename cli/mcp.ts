// `cei mcp`: an MCP server on stdio (decision 38) with one tool per published operation of the
// route table. Each tool's input schema is the operation's own request schemas (path parameters,
// query parameters as the values they stand for, body fields), and each call goes to the HTTP API
// with the caller's key (CEI_KEY) through clients/typescript, so it is authenticated, metered and
// rate limited like any request. A tool answers the operation's `data` and what the key has left;
// an API error is a tool error whose text says what to do (a 402 names the cost and the balance).
import type { Command } from "commander";
// The SDK is loaded only when the command runs, so that `cei --help` does not pay for it.
import type { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import { z } from "zod";
import { CeiApiError, CeiClient, CeiError, type OperationId } from "../clients/typescript/index.ts";
import { API_VERSION, documentedRoutes, openApiPath } from "../server/openapi/document.ts";
import { operationPolicy } from "../server/policy.ts";
import type { Route } from "../server/routes.ts";

/** A 429 that asks for a longer wait than this is answered as a tool error saying when to retry. */
const MAX_RATE_LIMIT_WAIT_MS = 5_000;

/** A query parameter as the value it stands for (`limit`: an integer 1-20), not the text the query string carries. */
function queryValue(schema: z.ZodType): z.ZodType {
  if (schema instanceof z.ZodDefault) return queryValue(schema.unwrap() as z.ZodType).default(schema.def.defaultValue as never);
  if (schema instanceof z.ZodOptional) return queryValue(schema.unwrap() as z.ZodType).optional();
  if (schema instanceof z.ZodPipe) return schema.out instanceof z.ZodTransform ? (schema.in as z.ZodType) : queryValue(schema.out as z.ZodType);
  return schema;
}

type RequestShape = z.ZodObject<{ params: z.ZodObject; query: z.ZodObject; body?: z.ZodObject }>;

/** One object of everything the operation takes: its path parameters, query parameters and body fields. */
export function toolInput(route: Route): z.ZodObject {
  const { params, query, body } = (route.handler.request as RequestShape).shape;
  const shape: Record<string, z.ZodType> = { ...params.shape };
  for (const [name, field] of Object.entries(query.shape)) shape[name] = queryValue(field as z.ZodType);
  if (body !== undefined) Object.assign(shape, body.shape);
  return z.strictObject(shape);
}

const _credits = (n: number) => (n === 1 ? "1 credit" : `${n} credits`);

function _description(route: Route): string {
  const { scope, cost } = operationPolicy[route.operation];
  const parts = [
    `${route.method} ${openApiPath(route.path)}: ${_credits(cost)} per success, errors cost nothing; ${scope === null ? "needs no scope" : `needs the \`${scope}\` scope`}.`,
    "Answers the operation's `data` (docs at /openapi.json) with `credits_remaining` and the key's `rate_limit`.",
  ];
  for (const missing of route.handler.missingParts) parts.push(`A served record without the part asked for answers "${missing.message}"`);
  return parts.join(" ");
}

function _text(value: unknown): CallToolResult["content"] {
  return [{ type: "text", text: JSON.stringify(value) }];
}

/** The tool error of a failed call: the API's code and message, and its details and balance when known. */
function _toolError(error: unknown): CallToolResult {
  if (error instanceof CeiApiError) {
    const found = { status: error.status, code: error.code, message: error.message, details: error.details, credits_remaining: error.meta.credits_remaining };
    return { isError: true, content: [{ type: "text", text: `${error.status} ${error.code}: ${error.message}` }, ..._text(found)], structuredContent: found };
  }
  const message = error instanceof CeiError ? error.message : String(error);
  return { isError: true, content: [{ type: "text", text: message }] };
}

export async function createMcpServer(client: CeiClient, options: { releaseTrendingProjects: boolean }): Promise<McpServer> {
  const { McpServer } = await import("@modelcontextprotocol/sdk/server/mcp.js");
  const server = new McpServer({ name: "cei", version: API_VERSION });
  for (const route of documentedRoutes(options.releaseTrendingProjects)) {
    server.registerTool(route.operation, {
      title: route.operation.replaceAll("_", " "),
      description: _description(route),
      inputSchema: toolInput(route),
      annotations: { readOnlyHint: true, idempotentHint: true, openWorldHint: false },
    }, async (args: Record<string, unknown>): Promise<CallToolResult> => {
      try {
        const call = client.call.bind(client) as (operation: OperationId, params: Record<string, unknown>) => Promise<{ data: unknown; meta: { credits_used: number; credits_remaining: number; rate_limit: unknown } }>;
        const { data, meta } = await call(route.operation as OperationId, args);
        const answer = { data, credits_used: meta.credits_used, credits_remaining: meta.credits_remaining, rate_limit: meta.rate_limit };
        return { content: _text(answer), structuredContent: answer };
      } catch (error) {
        return _toolError(error);
      }
    });
  }
  return server;
}

export function registerMcp(program: Command): void {
  program
    .command("mcp")
    .description("Serve the API's operations as MCP tools on stdio, calling the HTTP API with the key in CEI_KEY (metered like any request).")
    .option("--base-url <url>", "the API to call", "http://127.0.0.1:8787")
    .option("--release-trending-projects", "also offer the hidden trending-projects operation (when the server releases it)", false)
    .option("--timeout <ms>", "time limit of each request to the API, in milliseconds", "10000")
    .action(async (flags: { baseUrl: string; releaseTrendingProjects: boolean; timeout: string }) => {
      const apiKey = process.env.CEI_KEY;
      if (apiKey === undefined || apiKey === "") {
        process.stderr.write("cei mcp: set CEI_KEY to the API key every tool call is made with\n");
        process.exitCode = 2;
        return;
      }
      if (!/^[0-9]{1,7}$/.test(flags.timeout) || Number(flags.timeout) < 1) {
        process.stderr.write(`cei mcp: --timeout must be a whole number of milliseconds, got "${flags.timeout}"\n`);
        process.exitCode = 2;
        return;
      }
      const client = new CeiClient({ baseUrl: flags.baseUrl, apiKey, timeoutMs: Number(flags.timeout), maxRetryAfterMs: MAX_RATE_LIMIT_WAIT_MS });
      const server = await createMcpServer(client, { releaseTrendingProjects: flags.releaseTrendingProjects });
      const { StdioServerTransport } = await import("@modelcontextprotocol/sdk/server/stdio.js");
      await server.connect(new StdioServerTransport());
    });
}
