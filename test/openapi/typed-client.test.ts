// examples/typescript: its types are what openapi-typescript generates from docs/openapi.json, and
// its one call per operation runs against a real server (fixtures snapshot, ephemeral port).
import { spawn } from "node:child_process";
import { readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, expect, it } from "vitest";
import { callEveryOperation, ceiClient } from "../../examples/typescript/client.ts";
import type { RunningServer } from "../../server/listen.ts";
import { documentedRoutes } from "../../server/openapi/document.ts";
import { operationPolicy } from "../../server/policy.ts";
import { createTestService, startTestServer, type TestService } from "../_support/server.ts";

const REPO_DIR = fileURLToPath(new URL("../../", import.meta.url));
const GENERATED = "examples/typescript/api.d.ts";

let service: TestService;
let server: RunningServer;
beforeAll(async () => {
  service = await createTestService();
  server = await startTestServer(service.app);
});
afterAll(async () => {
  await server?.close();
  service?.close();
});

it(`${GENERATED} is what openapi-typescript generates from docs/openapi.json`, async () => {
  const child = spawn(process.execPath, ["node_modules/openapi-typescript/bin/cli.js", "docs/openapi.json"], { cwd: REPO_DIR, stdio: ["ignore", "pipe", "pipe"] });
  let stdout = "";
  child.stdout.setEncoding("utf8").on("data", (chunk: string) => (stdout += chunk));
  const code = await new Promise((resolve) => child.once("close", resolve));
  expect(code).toBe(0);
  expect(stdout, `regenerate: npx openapi-typescript docs/openapi.json -o ${GENERATED}`).toBe(readFileSync(new URL(`../../${GENERATED}`, import.meta.url), "utf8"));
});

it("calls every documented operation through openapi-fetch and reads each answer", async () => {
  const { key } = service.newKey({ credits: 100 });
  const lines = await callEveryOperation(ceiClient(server.url, key), {
    projectSlug: "aurora-swap",
    personSlug: "alice-nakamoto",
    personQuery: "alice",
    tokenId: "tok_aur",
    newsId: "story:11111111-1111-4111-8111-111111111111",
    xAccountId: "xa_wqzvo7hriklvfiutr25qfkq6hf",
    eventSlug: "berlin-node-day",
    narrativeSlug: "defi-lending",
    fundSlug: "atlas-ventures",
    stockSlug: "orbit-holdings",
  });
  expect(Object.keys(lines).sort()).toEqual(documentedRoutes(false).map((route) => route.operation).sort());
  expect(lines.get_project).toBe("Aurora Swap (proj_aurora)");
  expect(lines.search_entities).toContain("project:proj_aurora");
  expect(lines.get_token).toBe("AUR of Aurora Swap, rank 4");
  expect(lines.get_fund).toBe("Atlas Ventures: 2 portfolio projects, partners Alice Nakamoto");
  const spent = documentedRoutes(false).reduce((sum, route) => sum + operationPolicy[route.operation].cost, 0);
  const check = await service.call("GET", "/v1/projects/aurora-swap", { key });
  expect(check.body.meta.credits_remaining).toBe(100 - spent - 1);
});
