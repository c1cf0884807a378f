// clients/typescript against a real server: its types are what openapi-typescript generates from
// docs/openapi.json, every operation is called once and read through them, and its behaviour on
// the answers that matter to a caller: a 429 waited out, a 402 never retried, other 4xx thrown at
// once, a reset connection retried, an answer that never comes timed out.
import { spawn } from "node:child_process";
import { readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { callEveryOperation } from "../../clients/typescript/example.ts";
import {
  CeiConnectionError, CeiTimeoutError, createCeiClient, errorClasses, InsufficientCreditsError, NotFoundError, InvalidRequestError,
  type OperationId, type RetryEvent,
} from "../../clients/typescript/index.ts";
import { errorCodes } from "../../server/errors.ts";
import { documentedRoutes } from "../../server/openapi/document.ts";
import { operationPolicy, tierRateLimits } from "../../server/policy.ts";
import { callParams } from "../_support/operation-calls.ts";
import { FIXTURE_NOW } from "../_support/server.ts";
import { resettingFront, silentServer, spendWindow, startClientTestServer, type ClientTestServer } from "./_servers.ts";

const REPO_DIR = fileURLToPath(new URL("../../", import.meta.url));
const GENERATED = "clients/typescript/api.d.ts";

let running: ClientTestServer;
beforeAll(async () => {
  running = await startClientTestServer();
});
afterAll(() => running?.close());

it(`${GENERATED} is what openapi-typescript generates from docs/openapi.json`, async () => {
  const child = spawn(process.execPath, ["node_modules/openapi-typescript/bin/cli.js", "docs/openapi.json"], { cwd: REPO_DIR, stdio: ["ignore", "pipe", "pipe"] });
  let stdout = "";
  child.stdout.setEncoding("utf8").on("data", (chunk: string) => (stdout += chunk));
  const code = await new Promise((resolve) => child.once("close", resolve));
  expect(code).toBe(0);
  expect(stdout, `regenerate: npx openapi-typescript docs/openapi.json -o ${GENERATED}`).toBe(readFileSync(new URL(`../../${GENERATED}`, import.meta.url), "utf8"));
});

it("has one error class per error code of the contract", () => {
  expect(Object.keys(errorClasses).sort()).toEqual([...errorCodes].sort());
});

it("calls every documented operation by its id", async () => {
  const { key } = running.service.newKey({ credits: 100 });
  const cei = createCeiClient({ baseUrl: running.url, apiKey: key });
  const call = cei.call.bind(cei) as (operation: OperationId, params: Record<string, unknown>) => Promise<{ data: unknown; meta: { credits_used: number } }>;
  for (const route of documentedRoutes(false)) {
    const { meta } = await call(route.operation as OperationId, route.operation === "get_key" ? {} : callParams(route.operation));
    expect(meta.credits_used, route.operation).toBe(operationPolicy[route.operation].cost);
  }
  const spent = documentedRoutes(false).reduce((sum, route) => sum + operationPolicy[route.operation].cost, 0);
  expect((await cei.call("get_key")).meta.credits_remaining).toBe(100 - spent);
  // The free paths are operations too: the text of /llms.txt comes back as it is.
  expect(await cei.call("llms_txt")).toMatch(/^# Curated Entity Intelligence API/);
});

it("the example reads each answer it gets through the generated types", async () => {
  const cei = createCeiClient({ baseUrl: running.url, apiKey: running.service.newKey({ credits: 100 }).key });
  const lines = await callEveryOperation(cei, {
    projectSlug: "aurora-swap",
    personSlug: "alice-nakamoto",
    personQuery: "alice",
    tokenId: "tok_aur",
    newsId: "story:11111111-1111-4111-8111-111111111111",
    xAccountId: "xa_wqzvo7hriklvfiutr25qfkq6hf",
    eventSlug: "berlin-node-day",
  });
  expect(lines.get_project).toBe("Aurora Swap (proj_aurora)");
  expect(lines.search_entities).toContain("project:proj_aurora");
  expect(lines.get_x_account).toBe("xa_wqzvo7hriklvfiutr25qfkq6hf → project");
});

describe("retries", () => {
  it("waits out a 429 for Retry-After seconds, then answers", async () => {
    const { key } = running.service.newKey({ tier: "free" });
    // 900 ms before the window ends: Retry-After is 1.
    running.freeze(FIXTURE_NOW + 59_100);
    const retries: RetryEvent[] = [];
    const cei = createCeiClient({ baseUrl: running.url, apiKey: key, onRetry: (retry) => retries.push(retry) });
    try {
      // Loads the client's routes first (free, never metered), so that only the call is timed.
      await cei.call("healthz");
      await spendWindow(running.service, key, tierRateLimits.free);
      running.run();
      const started = performance.now();
      const { data, meta } = await cei.call("get_key");
      expect(performance.now() - started).toBeGreaterThanOrEqual(1_000);
      expect(retries).toEqual([{ attempt: 1, reason: "rate_limited", delayMs: expect.any(Number) }]);
      expect(retries[0]!.delayMs).toBeGreaterThanOrEqual(1_000);
      expect(data.id).toBeDefined();
      expect(meta.rate_limit).toMatchObject({ limit: 60, remaining: 59 });
    } finally {
      running.freeze(FIXTURE_NOW);
    }
  });

  it("never retries a 402: it throws InsufficientCreditsError naming the cost and the balance, after one request", async () => {
    const { key } = running.service.newKey({ credits: 1 });
    const retries: RetryEvent[] = [];
    const cei = createCeiClient({ baseUrl: running.url, apiKey: key, onRetry: (retry) => retries.push(retry) });
    const refused = await cei.call("search_people", { query: "alice" }).catch((error: unknown) => error);
    expect(refused).toBeInstanceOf(InsufficientCreditsError);
    expect(refused).toMatchObject({ name: "InsufficientCreditsError", status: 402, code: "INSUFFICIENT_CREDITS", message: expect.stringContaining("costs 2 credits; the API key has 1 credit") });
    expect(retries).toEqual([]);
    // The 402 was the key's one request before this one.
    expect((await cei.call("get_key")).meta.rate_limit.remaining).toBe(600 - 2);
  });

  it("throws other 4xx at once, typed: 404 and 422 with its details", async () => {
    const retries: RetryEvent[] = [];
    const cei = createCeiClient({ baseUrl: running.url, apiKey: running.service.newKey().key, onRetry: (retry) => retries.push(retry) });
    await expect(cei.call("get_project", { slug: "no-such-project" })).rejects.toBeInstanceOf(NotFoundError);
    const invalid = await cei.call("search_people", { query: "alice", limit: 50 }).catch((error: unknown) => error);
    expect(invalid).toBeInstanceOf(InvalidRequestError);
    expect((invalid as InvalidRequestError).details).toEqual([expect.objectContaining({ path: "limit", code: "too_big" })]);
    expect(retries).toEqual([]);
  });

  it("retries a connection that is reset, and gives up after maxRetries", async () => {
    const front = await resettingFront(running.url, 1);
    const stubborn = await resettingFront(running.url, 100);
    try {
      const retries: RetryEvent[] = [];
      const cei = createCeiClient({ baseUrl: front.url, apiKey: running.service.newKey().key, onRetry: (retry) => retries.push(retry) });
      expect((await cei.call("get_project", { slug: "aurora-swap" })).data.name).toBe("Aurora Swap");
      expect(retries).toEqual([{ attempt: 1, reason: "connection", delayMs: 250 }]);
      const failing = createCeiClient({ baseUrl: stubborn.url, apiKey: "cei_any", maxRetries: 1 });
      await expect(failing.call("get_key")).rejects.toBeInstanceOf(CeiConnectionError);
      expect(stubborn.accepted()).toBe(2);
    } finally {
      await front.close();
      await stubborn.close();
    }
  });

  it("times out an answer that never comes, without retrying it", async () => {
    const silent = await silentServer();
    try {
      const cei = createCeiClient({ baseUrl: silent.url, apiKey: "cei_any", timeoutMs: 300 });
      const started = performance.now();
      await expect(cei.call("get_key")).rejects.toBeInstanceOf(CeiTimeoutError);
      expect(performance.now() - started).toBeGreaterThanOrEqual(300);
      expect(silent.accepted()).toBe(1);
    } finally {
      await silent.close();
    }
  });
});
