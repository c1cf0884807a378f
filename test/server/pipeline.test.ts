// The check order of product decision 3, metering, and internal errors.
import { copyFileSync } from "node:fs";
import { join } from "node:path";
import Database from "better-sqlite3";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createApp } from "../../server/app.ts";
import type { Meter } from "../../server/meter/interface.ts";
import { Serving } from "../../server/serving.ts";
import { createTestService, fixtureSnapshot, FIXTURE_NOW, type TestService } from "../_support/server.ts";
import { errorMeta, okMeta, RESET_AT } from "./_expect.ts";
import { testTempDir } from "../_support/temp.ts";

let service: TestService;
beforeAll(async () => {
  service = await createTestService();
});
afterAll(() => service.close());

const PROJECT = "/v1/projects/aurora-swap";
const INVALID = "/v1/projects/aurora-swap?limit=1";
const MISSING = "/v1/projects/no-such-project";

describe("keys (steps 1-2)", () => {
  it("401 comes before routing: unknown paths and bad bodies get 401 without a key", async () => {
    for (const [method, path] of [["GET", "/nope"], ["POST", "/v1/search"], ["GET", PROJECT]] as const) {
      const res = await service.call(method, path, { key: "cei_doesnotexist", body: method === "POST" ? "{" : undefined });
      expect(res.status).toBe(401);
      expect(res.body).toEqual({
        error: { code: "INVALID_API_KEY", message: expect.any(String) },
        meta: { request_id: expect.any(String), credits_used: 0 },
      });
    }
  });
  it("403 for disabled and revoked keys, before routing, with balance and window", async () => {
    const disabled = service.newKey();
    service.disableKey(disabled.id);
    const revoked = service.newKey();
    service.revokeKey(revoked.id);
    for (const { key } of [disabled, revoked]) {
      for (const path of [PROJECT, "/nope"]) {
        const res = await service.call("GET", path, { key });
        expect(res.status).toBe(403);
        expect(res.body).toEqual({
          error: { code: "FORBIDDEN", message: "The API key is disabled or revoked." },
          meta: errorMeta(1_000, 0),
        });
      }
    }
  });
});

describe("route and scope (steps 3-4)", () => {
  it("an unknown route is 404 even for a key without the scope; a known one is 403", async () => {
    const { key } = service.newKey({ scopes: ["news"] });
    expect((await service.call("GET", "/v1/projects/aurora-swap/nope", { key })).status).toBe(404);
    const res = await service.call("GET", PROJECT, { key });
    expect(res.status).toBe(403);
    expect(res.body.error).toEqual({ code: "FORBIDDEN", message: "The API key does not have the scope this operation requires." });
  });
  it("HEAD is not a method of the API", async () => {
    const res = await service.call("HEAD", PROJECT);
    expect(res.status).toBe(404);
    expect(res.headers.get("x-service-request-id")).toMatch(/^req_/);
  });
});

describe("rate limit (step 5)", () => {
  it("counts valid and invalid requests; the 61st in a free window is 429 with Retry-After", async () => {
    const { key } = service.newKey({ tier: "free", credits: 1_000 });
    for (let i = 0; i < 60; i++) {
      const res = await service.call("GET", i % 2 === 0 ? PROJECT : INVALID, { key });
      expect(res.status).toBe(i % 2 === 0 ? 200 : 422);
    }
    const limited = await service.call("GET", INVALID, { key });
    expect(limited.status).toBe(429);
    expect(limited.body).toEqual({
      error: { code: "RATE_LIMITED", message: expect.any(String) },
      meta: errorMeta(970, 60, "free", 60),
    });
    expect(limited.headers.get("retry-after")).toBe("60");
    expect(limited.headers.get("x-service-rate-limit")).toBe(`limit=60;remaining=0;reset_at=${RESET_AT};tier=free`);
    expect(limited.headers.get("ratelimit")).toBe('"default";r=0;t=60');
    expect(limited.headers.get("ratelimit-policy")).toBe('"default";q=60;w=60');

    service.clock.now = FIXTURE_NOW + 59_500;
    try {
      expect((await service.call("GET", PROJECT, { key })).headers.get("retry-after")).toBe("1");
      service.clock.now = FIXTURE_NOW + 60_000;
      const next = await service.call("GET", PROJECT, { key });
      expect(next.status).toBe(200);
      expect(next.body.meta.rate_limit).toEqual({ limit: 60, remaining: 59, reset_at: "2026-03-01T12:02:00.000Z", tier: "free" });
    } finally {
      service.clock.now = FIXTURE_NOW;
    }
  });
  it("the internal tier has the highest limit", async () => {
    const res = await service.call("GET", PROJECT, { key: service.newKey({ tier: "internal" }).key });
    expect(res.body.meta.rate_limit).toEqual({ limit: 1_000_000, remaining: 999_999, reset_at: RESET_AT, tier: "internal" });
  });
});

describe("validation, credits and records (steps 6-9)", () => {
  it("422 before 402, 402 before 404", async () => {
    const { key } = service.newKey({ credits: 0 });
    expect((await service.call("GET", INVALID, { key })).status).toBe(422);
    const broke = await service.call("GET", MISSING, { key });
    expect(broke.status).toBe(402);
    expect(broke.body).toEqual({
      error: { code: "INSUFFICIENT_CREDITS", message: expect.any(String) },
      meta: errorMeta(0, 2),
    });
  });
  it("402 when the balance is below the cost (search costs 2)", async () => {
    const { key } = service.newKey({ credits: 1 });
    expect((await service.call("POST", "/v1/search", { key, body: { q: "aurora" } })).status).toBe(402);
    const res = await service.call("GET", PROJECT, { key });
    expect(res.body.meta).toEqual(okMeta(1, 0, 2));
  });
  it("charges successes only, by the operation's cost", async () => {
    const { key } = service.newKey({ credits: 10 });
    await service.call("GET", MISSING, { key });
    await service.call("GET", INVALID, { key });
    expect((await service.call("POST", "/v1/search", { key, body: { q: "aurora" } })).body.meta).toEqual(okMeta(2, 8, 3));
    expect((await service.call("GET", PROJECT, { key })).body.meta).toEqual(okMeta(1, 7, 4));
  });
});

describe("internal errors", () => {
  const expectGeneric500 = (res: { status: number; text: string; body: { error: unknown } }) => {
    expect(res.status).toBe(500);
    expect(res.body.error).toEqual({ code: "INTERNAL_ERROR", message: "The request could not be completed." });
    expect(res.text).not.toMatch(/SELECT|sqlite|at \w+ \(|\.ts:|JSON|Unexpected token/i);
  };

  it("an exception in an operation is a generic 500 that charges nothing", async () => {
    const file = join(testTempDir("cei-broken-"), "snapshot.db");
    copyFileSync(await fixtureSnapshot(), file);
    const writable = new Database(file);
    writable.prepare("UPDATE project_features SET chain_ids = 'not json' WHERE project_id = 'proj_aurora'").run();
    writable.close();
    const serving = await Serving.open(file, { now: () => service.clock.now, log: () => undefined });
    const app = createApp({ serving, meter: service.meter, now: () => service.clock.now, checkResponses: true });
    const { key } = service.newKey();
    const silenced = console.error;
    console.error = () => undefined;
    try {
      const response = await app.request("/v1/projects/aurora-swap/features", { headers: { authorization: `Bearer ${key}` } });
      const text = await response.text();
      expectGeneric500({ status: response.status, text, body: JSON.parse(text) });
      // Counted: the operation ran after admission.
      expect(JSON.parse(text).meta).toEqual(errorMeta(1_000, 1));
      expect(response.headers.get("content-type")).toBe("application/json; charset=utf-8");
    } finally {
      console.error = silenced;
      serving.close();
    }
  });

  it("a meter failure is a generic 500", async () => {
    const failing = {
      findKey: (secret: string) => service.meter.findKey(secret),
      status: (key: Parameters<Meter["status"]>[0]) => service.meter.status(key),
      admit: () => Promise.reject(new Error("SQLITE_BUSY: database is locked")),
      close: () => undefined,
    } as unknown as Meter;
    const app = createApp({ serving: service.serving, meter: failing, now: () => service.clock.now });
    const silenced = console.error;
    console.error = () => undefined;
    try {
      const response = await app.request(PROJECT, { headers: { authorization: `Bearer ${service.newKey().key}` } });
      const text = await response.text();
      expectGeneric500({ status: response.status, text, body: JSON.parse(text) });
    } finally {
      console.error = silenced;
    }
  });
});
