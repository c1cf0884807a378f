// The Prometheus metrics (server/metrics.ts), scraped over HTTP from their own listener
// (metrics-listen.ts) after real requests to a real public listener: requests by operation and
// status, latency, credits, refusals by reason, the meter's batches, each precomputed snapshot's
// age and time until stale at the injected clock, swaps, open connections, the process metrics.
import { copyFileSync, renameSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, expect, it } from "vitest";
import type { RunningServer } from "../../server/listen.ts";
import { createLogger } from "../../server/log.ts";
import { Metrics } from "../../server/metrics.ts";
import { startMetricsServer, type MetricsListener } from "../../server/metrics-listen.ts";
import { precomputedFreshness, asOfMs } from "../../snapshot/freshness.ts";
import { operationPolicy } from "../../server/policy.ts";
import { Serving } from "../../server/serving.ts";
import { listenerLog, servingLog } from "../../server/observe.ts";
import { startServer } from "../../server/listen.ts";
import { testTempDir } from "../_support/temp.ts";
import { RawConnection } from "../_support/raw-http.ts";
import { createTestService, type TestService } from "../_support/server.ts";

const cleanup: Array<() => unknown> = [];
afterEach(async () => {
  for (const step of cleanup.splice(0).reverse()) await step();
});

async function observed(): Promise<{ service: TestService; running: RunningServer; scrape: MetricsListener; metrics: Metrics }> {
  const metrics = new Metrics();
  const logger = createLogger("silent", { write: () => undefined });
  const service = await createTestService({ metrics, logger });
  cleanup.push(() => service.close());
  const running = await startServer(service.app, { port: 0, host: "127.0.0.1", onListenerAnswer: listenerLog(logger, metrics) });
  cleanup.push(() => running.close());
  metrics.watchServer(running.server);
  const scrape = await startMetricsServer(metrics);
  cleanup.push(() => scrape.close());
  return { service, running, scrape, metrics };
}

/** `name{labels} value` lines of the text format, as a map from `name{labels}` to the value. */
async function scraped(listener: MetricsListener): Promise<Map<string, number>> {
  const response = await fetch(`${listener.url}/metrics`);
  expect(response.status).toBe(200);
  expect(response.headers.get("content-type")).toMatch(/^text\/plain; version=0\.0\.4/);
  const series = new Map<string, number>();
  for (const line of (await response.text()).split("\n")) {
    if (line === "" || line.startsWith("#")) continue;
    const at = line.lastIndexOf(" ");
    series.set(line.slice(0, at), Number(line.slice(at + 1)));
  }
  return series;
}

it("counts requests, latency, credits and refusals by operation, status and reason", async () => {
  const { service, running, scrape } = await observed();
  const { key } = service.newKey({ credits: 100 });
  const auth = { authorization: `Bearer ${key}` };
  for (let i = 0; i < 3; i++) expect((await fetch(`${running.url}/v1/projects/aurora-swap`, { headers: auth })).status).toBe(200);
  expect((await fetch(`${running.url}/v1/projects/aurora-swap`, { headers: { authorization: "Bearer wrong" } })).status).toBe(401);
  expect((await fetch(`${running.url}/v1/projects/aurora-swap?limit=x`, { headers: auth })).status).toBe(422);
  const series = await scraped(scrape);
  expect(series.get('cei_requests_total{operation="get_project",status="200"}')).toBe(3);
  expect(series.get('cei_requests_total{operation="get_project",status="401"}')).toBe(1);
  expect(series.get('cei_request_duration_seconds_count{operation="get_project"}')).toBe(5);
  expect(series.get('cei_request_duration_seconds_bucket{le="+Inf",operation="get_project"}')).toBe(5);
  expect(series.get('cei_credits_charged_total{operation="get_project"}')).toBe(3 * operationPolicy.get_project.cost);
  expect(series.get('cei_requests_refused_total{reason="invalid_api_key"}')).toBe(1);
  expect(series.get('cei_requests_refused_total{reason="invalid_request"}')).toBe(1);
  // Four requests settled (admitted, then charged or refused), in at least one transaction each turn.
  expect(series.get("cei_meter_batch_jobs_sum")).toBe(4);
  expect(series.get("cei_meter_batch_duration_seconds_count")).toBe(series.get("cei_meter_batch_jobs_count"));
  expect(series.get("process_cpu_user_seconds_total")).toBeGreaterThan(0);
  expect(series.has("nodejs_eventloop_lag_seconds")).toBe(true);
});

it("reports each precomputed snapshot's age and time until stale at the clock, and open connections", async () => {
  const { service, running, scrape } = await observed();
  service.clock.now += 90_000;
  const snapshot = service.serving.acquire();
  const freshness = precomputedFreshness(snapshot.snapshots);
  service.serving.release(snapshot);
  const series = await scraped(scrape);
  const labels = (name: string) => `{precomputed="${name}",snapshot="${snapshot.contentHash}"}`;
  let bounded = 0;
  for (const [name, { as_of, fresh_until }] of Object.entries(freshness)) {
    if (as_of === null) continue;
    expect(series.get(`cei_snapshot_age_seconds${labels(name)}`)).toBeCloseTo((service.clock.now - asOfMs(as_of)) / 1000, 6);
    if (fresh_until === null) {
      expect(series.has(`cei_snapshot_seconds_until_stale${labels(name)}`)).toBe(false);
      continue;
    }
    bounded++;
    expect(series.get(`cei_snapshot_seconds_until_stale${labels(name)}`)).toBeCloseTo((Date.parse(fresh_until) - service.clock.now) / 1000, 6);
  }
  expect(bounded).toBeGreaterThan(0);

  const { key } = service.newKey();
  const held = await fetch(`${running.url}/healthz`, { headers: { authorization: `Bearer ${key}` } });
  await held.text();
  expect((await scraped(scrape)).get("cei_open_connections")).toBeGreaterThanOrEqual(1);
});

it("counts swaps by outcome and listener refusals by reason", async () => {
  const { service, running, scrape, metrics } = await observed();
  const dir = testTempDir("cei-metrics-");
  const served = join(dir, "served.db");
  copyFileSync(service.serving.file, served);
  const serving = await Serving.open(served, { now: () => service.clock.now, log: servingLog(createLogger("silent", { write: () => undefined }), metrics) });
  cleanup.push(() => serving.close());
  writeFileSync(join(dir, "garbage.db"), "not a database");
  renameSync(join(dir, "garbage.db"), served);
  expect(await serving.swap()).toBe("refused");
  copyFileSync(service.serving.file, join(dir, "next.db"));
  renameSync(join(dir, "next.db"), served);
  expect(await serving.swap()).toBe("swapped");
  expect(await serving.swap()).toBe("unchanged");

  const connection = await RawConnection.open(running.url);
  cleanup.push(() => connection.socket.destroy());
  connection.socket.write("GET /healthz HTTP/1.1\r\n\r\n");
  expect(await connection.nextResponse()).toMatchObject({ status: 422 });
  const series = await scraped(scrape);
  expect(series.get('cei_snapshot_swaps_total{outcome="refused"}')).toBe(1);
  expect(series.get('cei_snapshot_swaps_total{outcome="swapped"}')).toBe(1);
  expect(series.has('cei_snapshot_swaps_total{outcome="unchanged"}')).toBe(false);
  expect(series.get('cei_requests_refused_total{reason="missing_host"}')).toBe(1);
});

it("is served only by its own listener: the public port answers 404 for /metrics, the metrics port nothing else", async () => {
  const { service, running, scrape } = await observed();
  const { key } = service.newKey();
  const publicAnswer = await fetch(`${running.url}/metrics`, { headers: { authorization: `Bearer ${key}` } });
  expect(publicAnswer.status).toBe(404);
  expect(((await publicAnswer.json()) as { error: { code: string } }).error.code).toBe("NOT_FOUND");
  expect(new URL(scrape.url).hostname).toBe("127.0.0.1");
  expect((await fetch(`${scrape.url}/v1/projects/aurora-swap`)).status).toBe(404);
  expect((await fetch(`${scrape.url}/metrics`, { method: "POST" })).status).toBe(404);
});
