// GET /healthz and GET /readyz (decision 19): no key, never metered, no-store, a request id, the
// serving snapshot named; readiness gives each precomputed snapshot's as_of and fresh_until, and
// is 503 with the reason while the meter cannot be reached or every bounded snapshot is stale
// (decision 40).
// Also the stale warnings of `cei serve`, logged before and when a loaded snapshot goes stale.
import Database from "better-sqlite3";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { readManifest } from "../../compiler/manifest.ts";
import { createApp, SNAPSHOT_HEADER } from "../../server/app.ts";
import { freshnessBounds } from "../../snapshot/freshness.ts";
import { Serving } from "../../server/serving.ts";
import { WARN_BEFORE_STALE_MS, watchFreshness } from "../../server/stale-warnings.ts";
import { createTestService, fixtureSnapshot, REQUEST_ID, type TestService } from "../_support/server.ts";

let service: TestService;
let manifest: Record<string, unknown>;
beforeAll(async () => {
  service = await createTestService();
  manifest = readManifest(await fixtureSnapshot());
});
afterAll(() => service.close());

function expectPublicHeaders(headers: Headers): void {
  expect(headers.get("cache-control")).toBe("no-store");
  expect(headers.get("x-service-request-id")).toMatch(REQUEST_ID);
  expect(headers.get("content-type")).toBe("application/json; charset=utf-8");
  expect(headers.get(SNAPSHOT_HEADER)).toBe(manifest.content_hash);
}

describe("GET /healthz", () => {
  it("answers without a key: the process is up", async () => {
    const res = await service.call("GET", "/healthz", { key: null });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ status: "ok" });
    expectPublicHeaders(res.headers);
  });

  it("is never metered, even when a key is sent", async () => {
    const { key } = service.newKey({ tier: "free", credits: 5 });
    for (let i = 0; i < 3; i++) {
      expect((await service.call("GET", "/healthz", { key })).status).toBe(200);
      expect((await service.call("GET", "/readyz", { key })).status).toBe(200);
    }
    const res = await service.call("GET", "/v1/projects/aurora-swap", { key });
    expect(res.body.meta).toMatchObject({ credits_remaining: 4, rate_limit: { remaining: 59 } });
  });

  it("only GET: other methods keep decision 5 (401 without a key)", async () => {
    expect((await service.call("POST", "/healthz", { key: null })).status).toBe(401);
    expect((await service.call("GET", "/healthz/more", { key: null })).status).toBe(401);
  });
});

describe("GET /readyz", () => {
  it("names the snapshot and gives each precomputed snapshot's as_of and fresh_until", async () => {
    const res = await service.call("GET", "/readyz", { key: null });
    expect(res.status).toBe(200);
    expectPublicHeaders(res.headers);
    const snapshots = manifest.snapshots as Record<string, string | null>;
    const precomputed: Record<string, unknown> = {};
    for (const [name, asOf] of Object.entries(snapshots)) {
      const bound = (freshnessBounds as Record<string, number>)[name];
      const freshUntil = asOf === null || bound === undefined ? null : new Date(Date.parse(asOf) + bound).toISOString();
      precomputed[name] = { as_of: asOf, fresh_until: freshUntil, fresh: freshUntil === null ? bound === undefined : service.clock.now <= Date.parse(freshUntil) };
    }
    // fixtures/valid curates every family and every precomputed snapshot: it offers every operation.
    const holds = {
      families: ["projects", "tokens", "people", "funds", "stocks", "narratives", "news", "events", "x_accounts", "trending"],
      precomputed: ["trending_projects", "fund_rankings", "stock_rankings", "market", "market_snapshot", "top_movers", "trending_live", "trending_days", "narrative_rankings"],
    };
    expect(res.body).toEqual({ status: "ready", snapshot: manifest.content_hash, precomputed, holds, not_offered: [] });
    expect(Object.keys(precomputed).sort()).toEqual(["fund_rankings", "market", "narrative_rankings", "stock_rankings", "trending_live", "trending_projects"]);
  });

  it("says when a precomputed snapshot is no longer fresh, at request time", async () => {
    const liveAsOf = (manifest.snapshots as Record<string, string>).trending_live!;
    const saved = service.clock.now;
    service.clock.now = Date.parse(liveAsOf) + freshnessBounds.trending_live + 1;
    try {
      const res = await service.call("GET", "/readyz", { key: null });
      expect(res.status).toBe(200);
      expect(res.body.precomputed.trending_live.fresh).toBe(false);
      expect(res.body.precomputed.stock_rankings).toEqual({ as_of: null, fresh_until: null, fresh: true });
    } finally {
      service.clock.now = saved;
    }
  });

  it("503 with the same body and snapshot_stale once every bounded precomputed snapshot is stale; 200 while one is fresh", async () => {
    const snapshots = manifest.snapshots as Record<string, string | null>;
    const freshUntil = Object.entries(snapshots)
      .filter(([name, asOf]) => asOf !== null && Object.hasOwn(freshnessBounds, name))
      .map(([name, asOf]) => Date.parse(asOf!) + (freshnessBounds as Record<string, number>)[name]!);
    const saved = service.clock.now;
    try {
      service.clock.now = Math.max(...freshUntil);
      const lastFresh = await service.call("GET", "/readyz", { key: null });
      expect(lastFresh.status).toBe(200);
      expect(Object.values(lastFresh.body.precomputed as Record<string, { fresh: boolean }>).filter((p) => p.fresh).length).toBeGreaterThan(1);
      service.clock.now += 1;
      const stale = await service.call("GET", "/readyz", { key: null });
      expect(stale.status).toBe(503);
      expectPublicHeaders(stale.headers);
      expect(stale.body).toEqual({ ...lastFresh.body, status: "not_ready", reason: "snapshot_stale", precomputed: expect.any(Object) });
      // Only stock rankings, which have no bound, still answer.
      const stillFresh = Object.entries(stale.body.precomputed as Record<string, { fresh: boolean }>).filter(([, p]) => p.fresh).map(([name]) => name);
      expect(stillFresh).toEqual(["stock_rankings"]);
    } finally {
      service.clock.now = saved;
    }
    expect((await service.call("GET", "/readyz", { key: null })).status).toBe(200);
  });

  it("503 meter_unavailable while the meter file stays locked, 200 again once it is free", async () => {
    const { key } = service.newKey();
    const holder = new Database(service.meterFile);
    holder.prepare("BEGIN IMMEDIATE").run();
    const silenced = console.error;
    console.error = () => undefined;
    try {
      // Readiness learns it from a request that waited out the meter's bound.
      expect((await service.call("GET", "/v1/projects/aurora-swap", { key })).status).toBe(500);
      const res = await service.call("GET", "/readyz", { key: null });
      expect(res.status).toBe(503);
      expectPublicHeaders(res.headers);
      expect(res.body).toMatchObject({ status: "not_ready", reason: "meter_unavailable", snapshot: manifest.content_hash });
      expect(Object.keys(res.body.precomputed as object).sort()).toEqual(["fund_rankings", "market", "narrative_rankings", "stock_rankings", "trending_live", "trending_projects"]);
    } finally {
      console.error = silenced;
      holder.prepare("ROLLBACK").run();
      holder.close();
    }
    // Within about a second (the probe's interval) the free file is seen.
    const deadline = Date.now() + 5_000;
    let status = 503;
    while (status === 503 && Date.now() < deadline) {
      status = (await service.call("GET", "/readyz", { key: null })).status;
      if (status === 503) await new Promise((resolve) => setTimeout(resolve, 100));
    }
    expect(status).toBe(200);
    expect((await service.call("GET", "/v1/projects/aurora-swap", { key })).status).toBe(200);
  });

  it("503 once no snapshot is served (shutting down)", async () => {
    const serving = await Serving.open(await fixtureSnapshot(), { now: () => service.clock.now, log: () => undefined });
    const app = createApp({ serving, meter: service.meter, now: () => service.clock.now });
    serving.close();
    const res = await app.request("/readyz");
    expect(res.status).toBe(503);
    expect(await res.json()).toEqual({ status: "not_ready", reason: "shutting_down" });
    expect(res.headers.get("cache-control")).toBe("no-store");
    expect(res.headers.get("x-service-request-id")).toMatch(REQUEST_ID);
    expect((await app.request("/healthz")).status).toBe(200);
  });
});

describe("stale warnings", () => {
  const asOf = "2026-03-01T10:00:00.000Z";
  const staleAt = Date.parse(asOf) + freshnessBounds.trending_live;
  const snapshot = { contentHash: "c".repeat(64), snapshots: { trending_live: asOf, stock_rankings: null } };

  it("logs a warning before the snapshot goes stale, then when it has", async () => {
    const lines: string[] = [];
    // 40 ms before the warning is due: both lines come from timers.
    const start = Date.now();
    const now = () => staleAt - WARN_BEFORE_STALE_MS - 40 + (Date.now() - start);
    const stop = watchFreshness(snapshot, now, (line) => lines.push(line));
    try {
      expect(lines).toEqual([]);
      await new Promise((resolve) => setTimeout(resolve, 150));
      expect(lines).toHaveLength(1);
      expect(lines[0]).toMatch(/trending_live goes stale at 2026-03-01T12:00:00.000Z \(in 10 minutes\)/);
    } finally {
      stop();
    }
  });

  it("logs at once a snapshot that is stale or about to be when loaded; stock rankings never", () => {
    const lines: string[] = [];
    watchFreshness(snapshot, () => staleAt + 1, (line) => lines.push(line))();
    watchFreshness(snapshot, () => staleAt - 60_000, (line) => lines.push(line))();
    expect(lines).toHaveLength(2);
    expect(lines[0]).toMatch(/^cei serve: warning: snapshot c{64}: trending_live is stale since 2026-03-01T12:00:00.000Z/);
    expect(lines[1]).toMatch(/trending_live goes stale at 2026-03-01T12:00:00.000Z;/);
  });
});
