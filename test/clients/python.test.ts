// clients/python (standard library only) against a real server, run by python3: every operation
// once by its id, and the same behaviour as the TypeScript client: a 429 waited out, a 402 never
// retried, other 4xx raised at once and typed, a reset connection retried, a silent server timed out.
import { execFile, spawn } from "node:child_process";
import { createInterface } from "node:readline";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { documentedRoutes } from "../../server/openapi/document.ts";
import { errorCodes } from "../../server/errors.ts";
import { operationPolicy, tierRateLimits } from "../../server/policy.ts";
import { callParams } from "../_support/operation-calls.ts";
import { FIXTURE_NOW } from "../_support/server.ts";
import { resettingFront, silentServer, spendWindow, startClientTestServer, type ClientTestServer } from "./_servers.ts";

const RUNNER = fileURLToPath(new URL("./_python_calls.py", import.meta.url));
const CLIENT = fileURLToPath(new URL("../../clients/python/cei.py", import.meta.url));

interface Outcome {
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  ok?: any;
  error?: string;
  status?: number;
  message?: string;
  details?: Array<{ path: string; code: string }>;
  retries: Array<{ attempt: number; reason: string; delay_s: number }>;
  seconds: number;
}

async function python(baseUrl: string, apiKey: string, calls: Array<[string, Record<string, unknown>]>, options: Record<string, unknown> = {}): Promise<Outcome[]> {
  const spec = JSON.stringify({ base_url: baseUrl, api_key: apiKey, options, calls });
  // No bytecode beside the client: the repository stays as it was.
  const { stdout } = await promisify(execFile)("python3", [RUNNER, spec], { env: { ...process.env, PYTHONDONTWRITEBYTECODE: "1" } });
  return stdout.trim().split("\n").map((line) => JSON.parse(line) as Outcome);
}

/** The runner with its routes loaded; `go()` runs the calls once the test is ready for them. */
async function pythonReady(baseUrl: string, apiKey: string, calls: Array<[string, Record<string, unknown>]>): Promise<{ go(): Promise<Outcome[]> }> {
  const spec = JSON.stringify({ base_url: baseUrl, api_key: apiKey, calls, ready: true });
  const child = spawn("python3", [RUNNER, spec], { env: { ...process.env, PYTHONDONTWRITEBYTECODE: "1" }, stdio: ["pipe", "pipe", "inherit"] });
  const lines: string[] = [];
  const exited = new Promise((resolve) => child.once("close", resolve));
  const ready = new Promise<void>((resolve) => createInterface({ input: child.stdout! }).on("line", (line) => (line === "ready" ? resolve() : lines.push(line))));
  await ready;
  return {
    async go() {
      child.stdin!.end("go\n");
      expect(await exited).toBe(0);
      return lines.map((line) => JSON.parse(line) as Outcome);
    },
  };
}

let running: ClientTestServer;
beforeAll(async () => {
  running = await startClientTestServer();
});
afterAll(() => running?.close());

it("is standard library only, with type hints, and one error class per error code", async () => {
  const { stdout } = await promisify(execFile)("python3", ["-c", `
import ast, json, sys
tree = ast.parse(open(sys.argv[1]).read())
imported = sorted({(n.module if isinstance(n, ast.ImportFrom) else a.name).split(".")[0] for n in ast.walk(tree) if isinstance(n, (ast.Import, ast.ImportFrom)) for a in n.names})
functions = [n for n in ast.walk(tree) if isinstance(n, ast.FunctionDef)]
untyped = [n.name for n in functions if n.returns is None or any(a.annotation is None and a.arg != "self" for a in n.args.args + n.args.kwonlyargs)]
sys.path.insert(0, sys.argv[1].rsplit("/", 1)[0])
import cei
print(json.dumps({"imported": imported, "stdlib": sorted(sys.stdlib_module_names), "untyped": untyped, "codes": sorted(cei.ERROR_CLASSES)}))
`, CLIENT], { env: { ...process.env, PYTHONDONTWRITEBYTECODE: "1" } });
  const { imported, stdlib, untyped, codes } = JSON.parse(stdout) as { imported: string[]; stdlib: string[]; untyped: string[]; codes: string[] };
  expect(imported.filter((name) => name !== "__future__" && !stdlib.includes(name))).toEqual([]);
  expect(untyped).toEqual([]);
  expect(codes).toEqual([...errorCodes].sort());
});

it("calls every documented operation by its id", async () => {
  const { key } = running.service.newKey({ credits: 100 });
  const operations = documentedRoutes(false).map((route) => route.operation);
  const outcomes = await python(running.url, key, operations.map((operation) => [operation, operation === "get_key" ? {} : callParams(operation)]));
  outcomes.forEach((outcome, i) => {
    expect(outcome.error, `${operations[i]}: ${outcome.message}`).toBeUndefined();
    expect(Object.keys(outcome.ok).sort(), operations[i]).toEqual(["data", "meta"]);
    expect(outcome.ok.meta.credits_used, operations[i]).toBe(operationPolicy[operations[i]!].cost);
  });
  expect(outcomes[operations.indexOf("get_project")]!.ok.data.name).toBe("Aurora Swap");
});

describe("retries", () => {
  it("waits out a 429 for Retry-After seconds, then answers", async () => {
    const { key } = running.service.newKey({ tier: "free" });
    // 900 ms before the window ends: Retry-After is 1.
    running.freeze(FIXTURE_NOW + 59_100);
    try {
      const runner = await pythonReady(running.url, key, [["get_key", {}]]);
      await spendWindow(running.service, key, tierRateLimits.free);
      running.run();
      const [outcome] = await runner.go();
      expect(outcome!.error).toBeUndefined();
      expect(outcome!.retries).toEqual([{ attempt: 1, reason: "rate_limited", delay_s: expect.any(Number) }]);
      expect(outcome!.retries[0]!.delay_s).toBeGreaterThanOrEqual(1);
      expect(outcome!.seconds).toBeGreaterThanOrEqual(1);
      expect(outcome!.ok.meta.rate_limit).toMatchObject({ limit: 60, remaining: 59 });
    } finally {
      running.freeze(FIXTURE_NOW);
    }
  });

  it("never retries a 402, and raises the other 4xx at once, typed", async () => {
    const { key } = running.service.newKey({ credits: 1 });
    const [poor, missing, invalid, after] = await python(running.url, key, [
      ["search_people", { query: "alice" }],
      ["get_project", { slug: "no-such-project" }],
      ["search_people", { query: "alice", limit: 50 }],
      ["get_key", {}],
    ]);
    expect(poor).toMatchObject({ error: "InsufficientCreditsError", status: 402, retries: [] });
    expect(poor!.message).toContain("costs 2 credits; the API key has 1 credit");
    expect(missing).toMatchObject({ error: "NotFoundError", status: 404, retries: [] });
    expect(invalid).toMatchObject({ error: "InvalidRequestError", status: 422, retries: [], details: [expect.objectContaining({ path: "limit", code: "too_big" })] });
    // Four requests in the window, the get_key included: nothing was sent twice.
    expect(after!.ok.meta.rate_limit.remaining).toBe(600 - 4);
  });

  it("retries a connection that is reset, and times out an answer that never comes without retrying", async () => {
    const front = await resettingFront(running.url, 1);
    const silent = await silentServer();
    try {
      const [reset] = await python(front.url, running.service.newKey().key, [["get_project", { slug: "aurora-swap" }]]);
      expect(reset!.ok.data.name).toBe("Aurora Swap");
      expect(reset!.retries).toEqual([{ attempt: 1, reason: "connection", delay_s: 0.25 }]);
      const [timedOut] = await python(silent.url, "cei_any", [["get_key", {}]], { timeout_s: 0.3 });
      expect(timedOut).toMatchObject({ error: "CeiTimeoutError", retries: [] });
      expect(silent.accepted()).toBe(1);
    } finally {
      await front.close();
      await silent.close();
    }
  });
});
