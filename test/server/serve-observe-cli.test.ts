// `cei serve` as an operator runs it with the metrics listener and listhen: the log on stderr is
// JSON lines (listening, one per request, the shutdown, written out before exit), the metrics are
// scraped from their own port on 127.0.0.1, and bad observation options are refused.
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, expect, it } from "vitest";
import { openMeterDatabase } from "../../server/meter/sqlite/database.ts";
import { createKey } from "../../server/meter/sqlite/keys.ts";
import { CEI_BIN, cei, startChildServer, type ChildServer } from "../_support/processes.ts";
import { fixtureSnapshot } from "../_support/server.ts";

let dir: string;
let key: string;
let keyId: string;
let server: ChildServer;
beforeAll(async () => {
  const snapshot = await fixtureSnapshot();
  dir = mkdtempSync(join(tmpdir(), "cei-observe-"));
  const meterFile = join(dir, "meter.db");
  const admin = openMeterDatabase(meterFile);
  ({ key, id: keyId } = createKey(admin, { tier: "internal", credits: 1_000 }, Date.now()));
  admin.close();
  server = await startChildServer(
    [CEI_BIN, "serve", "--snapshot", snapshot, "--meter", meterFile, "--port", "0", "--metrics-port", "0", "--listener", "listhen", "--log-level", "info"],
    (lines) => /^cei serving .* on (http:\/\/127\.0\.0\.1:\d+)$/.exec(lines.at(-1)!)?.[1],
  );
}, 60_000);
afterAll(async () => {
  await server?.stop("SIGKILL");
  rmSync(dir, { recursive: true, force: true });
});

function logged(): Array<Record<string, unknown>> {
  return server.stderr().split("\n").filter((line) => line.startsWith("{")).map((line) => JSON.parse(line) as Record<string, unknown>);
}

async function until(check: () => boolean, what: string): Promise<void> {
  const deadline = Date.now() + 10_000;
  while (!check()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}; stderr:\n${server.stderr()}`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

it("logs JSON lines, serves metrics on their own port, and writes the last lines out before it exits", async () => {
  await until(() => logged().some((line) => line.event === "listening"), "the listening line");
  const listening = logged().find((line) => line.event === "listening")!;
  expect(listening.url).toBe(server.url);
  const metricsUrl = String(listening.metrics_url);
  expect(metricsUrl).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/metrics$/);
  expect(metricsUrl).not.toBe(`${server.url}/metrics`);

  const response = await fetch(`${server.url}/v1/projects/aurora-swap`, { headers: { authorization: `Bearer ${key}` } });
  expect(response.status).toBe(200);
  const requestId = response.headers.get("x-service-request-id");
  await until(() => logged().some((line) => line.request_id === requestId), "the request line");
  expect(logged().find((line) => line.request_id === requestId)).toMatchObject({ key_id: keyId, operation: "get_project", status: 200 });
  expect(server.stderr()).not.toContain(key);

  const scraped = await (await fetch(metricsUrl)).text();
  expect(scraped).toContain('cei_requests_total{operation="get_project",status="200"} 1');
  expect(scraped).toMatch(/^cei_open_connections \d+$/m);

  server.child.kill("SIGTERM");
  expect(await server.exited).toEqual({ code: 0, signal: null });
  expect(logged().at(-1)).toMatchObject({ event: "stopped", graceful: true, msg: "cei: stopped" });
}, 30_000);

it("refuses an unknown log level and a metrics port equal to the public one", async () => {
  const snapshot = await fixtureSnapshot();
  const meter = join(dir, "other.db");
  await expect(cei(["serve", "--snapshot", snapshot, "--meter", meter, "--log-level", "loud"])).rejects.toThrow(/--log-level must be one of/);
  await expect(cei(["serve", "--snapshot", snapshot, "--meter", meter, "--port", "9000", "--metrics-port", "9000"])).rejects.toThrow(/--metrics-port must differ from --port/);
});
