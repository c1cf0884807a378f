// Admission before work (decision 20): a 429 or 402 is decided without running the operation,
// while the answer order of decision 3 stays (422 before 402); the charge is still conditional.
import { copyFileSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import Database from "better-sqlite3";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { meterBackends } from "../_support/meter-backends.ts";
import { createApp } from "../../server/app.ts";
import { startServer, type RunningServer } from "../../server/listen.ts";
import { openMeter } from "../../server/meter/open.ts";
import { Serving } from "../../server/serving.ts";
import { fixtureSnapshot, request, startMeteredServer, type MeteredServer } from "./_http.ts";

describe.each(meterBackends)("%s meter", (backend) => {
  let server: MeteredServer;
  beforeAll(async () => {
    server = await startMeteredServer({ backend });
  });
  afterAll(() => server.close());

  const EVENT = "/v1/events/berlin-node-day";

  describe("a refused request never runs the operation", () => {
    // A snapshot whose features rows make the operation throw: running it would answer 500.
    let broken: { url: string; close(): Promise<void> };
    beforeAll(async () => {
      const dir = mkdtempSync(join(tmpdir(), "cei-admission-"));
      const file = join(dir, "snapshot.db");
      copyFileSync(await fixtureSnapshot(), file);
      const writable = new Database(file);
      writable.prepare("UPDATE project_features SET chain_ids = 'not json'").run();
      writable.close();
      const serving = await Serving.open(file, { now: () => server.clock.now, log: () => undefined });
      // The same meter as `server`, through a second Meter, so keys made there work here.
      const meter = await openMeter(server.meterLocation, { now: () => server.clock.now });
      const running: RunningServer = await startServer(createApp({ serving, meter, now: () => server.clock.now }), { port: 0, host: "127.0.0.1" });
      broken = {
        url: running.url,
        async close() {
          await running.close();
          await meter.close();
          serving.close();
          rmSync(dir, { recursive: true, force: true });
        },
      };
    });
    afterAll(() => broken.close());
    const FEATURES = "/v1/projects/aurora-swap/features";

    it("the operation does run for a key with credits (500), but not for a key without (402) or over its window (429)", async () => {
      const silenced = console.error;
      console.error = () => undefined;
      try {
        const rich = await server.newKey({ credits: 10 });
        expect((await request(broken.url, "GET", FEATURES, { key: rich.key })).status).toBe(500);
        const broke = await server.newKey({ credits: 0 });
        const poor = await request(broken.url, "GET", FEATURES, { key: broke.key });
        expect(poor.status).toBe(402);
        expect(poor.body.meta).toMatchObject({ credits_used: 0, credits_remaining: 0, rate_limit: { remaining: 599 } });
        const limited = await server.newKey({ tier: "free", credits: 100 });
        for (let i = 0; i < 60; i++) await request(broken.url, "GET", EVENT, { key: limited.key });
        const refused = await request(broken.url, "GET", FEATURES, { key: limited.key });
        expect(refused.status).toBe(429);
        expect(refused.headers.get("retry-after")).toMatch(/^\d+$/);
      } finally {
        console.error = silenced;
      }
    });
  });

  describe("the order of decision 3 is kept", () => {
    it("an invalid request from a key without credits is 422 with every detail; a valid one is 402", async () => {
      const { key } = await server.newKey({ credits: 0 });
      const invalid = await server.call("GET", "/v1/markets/top-movers?period=1h&limit=50&sort=desc", { key });
      expect(invalid.status).toBe(422);
      expect(invalid.body.error.details.map((d: { path: string }) => d.path).sort()).toEqual(["limit", "period", "sort"]);
      // A cheap check beyond the schema (the trending date window) is still a 422, not a 402.
      const outside = await server.call("GET", "/v1/discover/trending?date=2001-01-01", { key });
      expect(outside.status).toBe(422);
      expect(outside.body.error.details).toEqual([expect.objectContaining({ path: "date", code: "outside_window" })]);
      const bulk = await server.call("POST", "/v1/search", { key, body: { q: "*" } });
      expect(bulk.status).toBe(422);
      expect((await server.call("POST", "/v1/search", { key, body: { q: "aurora" } })).status).toBe(402);
      // 402 beats the record's 404.
      expect((await server.call("GET", "/v1/events/no-such-event", { key })).status).toBe(402);
    });

    it("a window used up is 429 whatever the request: invalid, unreadable body, too many parameters", async () => {
      const { key } = await server.newKey({ tier: "free", credits: 0 });
      for (let i = 0; i < 60; i++) await server.call("GET", EVENT, { key });
      const many = Array.from({ length: 30 }, (_, i) => `p${i}=1`).join("&");
      for (const [method, path, body] of [
        ["GET", `${EVENT}?limit=0`, undefined], ["POST", "/v1/search", "{not json"], ["GET", `${EVENT}?${many}`, undefined],
        ["POST", "/v1/search", { q: "ab", types: Array(4_000).fill(0) }],
      ] as const) {
        const res = await server.call(method, path, { key, body });
        expect(res.status, path).toBe(429);
        expect(res.body.error.details).toBeUndefined();
      }
    });

    it("two requests admitted with the balance for one: one is charged, the other answers 402 uncharged", async () => {
      const { id, key } = await server.newKey({ credits: 1 });
      const answers = await Promise.all([server.call("GET", EVENT, { key }), server.call("GET", EVENT, { key })]);
      expect(answers.map((a) => a.status).sort()).toEqual([200, 402]);
      const refused = answers.find((a) => a.status === 402)!;
      expect(refused.body.meta).toMatchObject({ credits_used: 0, credits_remaining: 0 });
      expect((await server.view.ledger(id)).filter((row) => row.kind === "charge")).toHaveLength(1);
      expect(await server.view.credits(id)).toBe(0);
    });
  });

  describe("GET /v1/key (decision 26)", () => {
    it("describes the calling key, needs no scope, costs nothing even at 0 credits, counts in the window", async () => {
      const { id, key } = await server.newKey({ tier: "free", credits: 0, scopes: ["news", "events"] });
      const first = await server.call("GET", "/v1/key", { key });
      expect(first.status).toBe(200);
      expect(first.body.data).toEqual({
        kind: "key_info", id, tier: "free", scopes: ["news", "events"], credits_remaining: 0,
        rate_limit: { limit: 60, remaining: 59, reset_at: expect.any(String), tier: "free" },
      });
      expect(first.body.meta).toEqual({ request_id: expect.any(String), credits_used: 0, credits_remaining: 0, rate_limit: first.body.data.rate_limit });
      expect(first.headers.get("cache-control")).toBe("no-store");
      expect(first.headers.get("x-service-credits-used")).toBe("0");
      for (let i = 0; i < 59; i++) expect((await server.call("GET", "/v1/key", { key })).status).toBe(200);
      const limited = await server.call("GET", "/v1/key", { key });
      expect(limited.status).toBe(429);
      expect(await server.view.ledger(id)).toEqual([]);
    });

    it("403 for a disabled or revoked key; 422 for any query parameter; 404 for another method", async () => {
      const disabled = await server.newKey();
      await server.disableKey(disabled.id);
      expect((await server.call("GET", "/v1/key", { key: disabled.key })).status).toBe(403);
      const revoked = await server.newKey();
      await server.revokeKey(revoked.id);
      expect((await server.call("GET", "/v1/key", { key: revoked.key })).status).toBe(403);
      const { key } = await server.newKey();
      const invalid = await server.call("GET", "/v1/key?verbose=1", { key });
      expect(invalid.status).toBe(422);
      expect(invalid.body.error.details).toEqual([expect.objectContaining({ path: "verbose", code: "unknown_parameter" })]);
      expect((await server.call("POST", "/v1/key", { key })).status).toBe(404);
    });
  });
});
