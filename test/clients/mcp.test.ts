// `cei mcp` as an agent's host runs it: a child process on stdio, driven by the MCP SDK's own
// client. Its tools are the published operations with input schemas from their request schemas;
// each call goes to the real server with the key in CEI_KEY, so it is charged like any request,
// and a 402 comes back as a tool error naming the cost and the balance.
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { afterAll, beforeAll, expect, it } from "vitest";
import { documentedRoutes } from "../../server/openapi/document.ts";
import { CEI_BIN, REPO_ROOT } from "../_support/processes.ts";
import { testTempDir } from "../_support/temp.ts";
import { startClientTestServer, type ClientTestServer } from "./_servers.ts";

let running: ClientTestServer;
let client: Client;
let key: { id: string; key: string };
beforeAll(async () => {
  running = await startClientTestServer();
  // search (2) and a project (1): the next charged call is refused.
  key = running.service.newKey({ credits: 3 });
  const env = Object.fromEntries(Object.entries(process.env).filter((entry): entry is [string, string] => entry[1] !== undefined));
  const transport = new StdioClientTransport({
    command: process.execPath, args: [CEI_BIN, "mcp", "--base-url", running.url], cwd: REPO_ROOT, stderr: "pipe",
    // Its temp files (tsx's, when the sources are newer than the bundle) go to the test's folder.
    env: { ...env, CEI_KEY: key.key, TMPDIR: testTempDir("cei-mcp-") },
  });
  client = new Client({ name: "cei-test", version: "1.0.0" });
  await client.connect(transport);
}, 60_000);
afterAll(async () => {
  await client?.close();
  await running?.close();
});

it("lists one tool per published operation, with input schemas from the request schemas", async () => {
  const { tools } = await client.listTools();
  expect(tools.map((tool) => tool.name).sort()).toEqual(documentedRoutes(false).map((route) => route.operation).sort());
  const byName = new Map(tools.map((tool) => [tool.name, tool]));
  expect(byName.get("get_project")!.inputSchema).toMatchObject({
    type: "object", required: ["slug"], properties: { slug: { type: "string", minLength: 1, maxLength: 160 } }, additionalProperties: false,
  });
  // Query parameters as the values they stand for: `limit` is an integer with its range and default.
  expect(byName.get("search_people")!.inputSchema).toMatchObject({
    required: ["query"], properties: { limit: { type: "integer", minimum: 1, maximum: 20, default: 10 } },
  });
  expect(byName.get("search_entities")!.inputSchema).toMatchObject({ required: ["q"], properties: { types: { items: { enum: expect.arrayContaining(["project", "news"]) } } } });
  expect(byName.get("get_project")!.description).toContain("GET /v1/projects/{slug}: 1 credit per success");
  expect(byName.get("get_project")!.annotations).toMatchObject({ readOnlyHint: true });
});

it("calls the API with the caller's key: data and the credits left, charged like any request; a 402 is a tool error", async () => {
  const search = await client.callTool({ name: "search_entities", arguments: { q: "aurora", types: ["project"], limit: 3 } });
  expect(search.isError).toBeFalsy();
  expect(search.structuredContent).toMatchObject({ credits_used: 2, credits_remaining: 1, data: { results: [expect.objectContaining({ id: "proj_aurora" })] } });

  const project = await client.callTool({ name: "get_project", arguments: { slug: "aurora-swap" } });
  expect(project.structuredContent).toMatchObject({ credits_used: 1, credits_remaining: 0, data: { name: "Aurora Swap" } });
  expect(JSON.parse((project.content as Array<{ text: string }>)[0]!.text)).toEqual(project.structuredContent);

  const self = await client.callTool({ name: "get_key", arguments: {} });
  expect(self.structuredContent).toMatchObject({ credits_used: 0, credits_remaining: 0, data: { id: key.id } });

  const refused = await client.callTool({ name: "get_project", arguments: { slug: "aurora-swap" } });
  expect(refused.isError).toBe(true);
  expect((refused.content as Array<{ text: string }>)[0]!.text).toBe(
    "402 INSUFFICIENT_CREDITS: This operation costs 1 credit; the API key has 0 credits. Ask the operator to credit the key.",
  );
  expect(refused.structuredContent).toMatchObject({ status: 402, code: "INSUFFICIENT_CREDITS", credits_remaining: 0 });

  // Every call reached the server and counted in the key's window: four, plus this one.
  expect((await running.service.call("GET", "/v1/key", { key: key.key })).body.meta.rate_limit.remaining).toBe(600 - 5);
});

it("refuses arguments the operation does not take before calling the API", async () => {
  const wrong = await client.callTool({ name: "get_project", arguments: { slug: "aurora-swap", extra: 1 } });
  expect(wrong.isError).toBe(true);
  expect((wrong.content as Array<{ text: string }>)[0]!.text).toContain("extra");
});
