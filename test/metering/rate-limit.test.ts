// Rate limits over HTTP with the injected clock (decisions 3.5, 10, 11, 12): exactly `limit`
// requests pass in a window, the next gets 429 with Retry-After = whole seconds to reset_at
// (rounded up, never 0), the next window passes again, and the header and meta always agree.
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { meterBackends } from "../_support/meter-backends.ts";
import type { Tier } from "../../server/policy.ts";
import { FIXTURE_NOW, startMeteredServer, type HttpResult, type MeteredServer } from "./_http.ts";
import { expectMetering, parseRateLimitHeader } from "./_expect.ts";

const EVENT = "/v1/events/berlin-node-day";
const WINDOW_1 = FIXTURE_NOW; // 12:00:00.000, a window start
const RESET_1 = "2026-03-01T12:01:00.000Z";
const RESET_2 = "2026-03-01T12:02:00.000Z";

describe.each(meterBackends)("%s meter", (backend) => {
  let server: MeteredServer;
  beforeAll(async () => { server = await startMeteredServer({ backend }); });
  afterAll(() => server.close());
  beforeEach(() => { server.clock.now = WINDOW_1 + 10_250; });

  const get = (path: string, key: string) => server.call("GET", path, { key });

  function expectHeaderMatchesMeta(res: HttpResult): void {
    expect(parseRateLimitHeader(res.headers.get("x-service-rate-limit"))).toEqual(res.body.meta.rate_limit);
  }

  describe("a free key (60 requests per window)", () => {
    it("passes exactly 60, refuses the 61st until reset_at, then passes 60 in the next window", async () => {
      const { id, key } = await server.newKey({ tier: "free", credits: 1_000 });
      for (let i = 1; i <= 60; i++) {
        const res = await get(EVENT, key);
        expectMetering(res, { status: 200, credits_used: 1, credits_remaining: 1_000 - i, rate_limit: { limit: 60, remaining: 60 - i, reset_at: RESET_1, tier: "free" } }, server.clock.now);
        expectHeaderMatchesMeta(res);
      }
      const limited = { status: 429, code: "RATE_LIMITED", credits_used: 0, credits_remaining: 940, rate_limit: { limit: 60, remaining: 0, reset_at: RESET_1, tier: "free" } };
      // 12:00:10.250 → 49.75 s to the reset → 50; then the last whole second and the boundary around it.
      for (const [offset, retryAfter] of [[10_250, "50"], [58_999, "2"], [59_000, "1"], [59_999, "1"]] as const) {
        server.clock.now = WINDOW_1 + offset;
        const res = await get(EVENT, key);
        expectMetering(res, { ...limited, retry_after: retryAfter }, server.clock.now);
        expectHeaderMatchesMeta(res);
      }

      server.clock.now = WINDOW_1 + 60_000; // reset_at: a new window
      for (let i = 1; i <= 60; i++) {
        const res = await get(EVENT, key);
        expectMetering(res, { status: 200, credits_used: 1, credits_remaining: 940 - i, rate_limit: { limit: 60, remaining: 60 - i, reset_at: RESET_2, tier: "free" } }, server.clock.now);
      }
      const full = await get(EVENT, key);
      expectMetering(full, { ...limited, credits_remaining: 880, rate_limit: { ...limited.rate_limit, reset_at: RESET_2 }, retry_after: "60" }, server.clock.now);
      expectHeaderMatchesMeta(full);
      expect(await server.view.credits(id)).toBe(880);
      expect((await server.view.ledger(id)).filter((row) => row.kind === "charge")).toHaveLength(120);
    });

    it("of 75 concurrent requests in one window exactly 60 pass, with remaining 59..0 each given once", async () => {
      const { id, key } = await server.newKey({ tier: "free", credits: 1_000 });
      const answers = await Promise.all(Array.from({ length: 75 }, () => get(EVENT, key)));
      const passed = answers.filter((res) => res.status === 200);
      expect(passed).toHaveLength(60);
      expect(answers.filter((res) => res.status === 429)).toHaveLength(15);
      expect(passed.map((res) => res.body.meta.rate_limit.remaining).sort((a, b) => a - b)).toEqual(Array.from({ length: 60 }, (_, i) => i));
      for (const res of answers) {
        expectHeaderMatchesMeta(res);
        expect(res.headers.get("retry-after")).toBe(res.status === 429 ? "50" : null);
      }
      expect(await server.view.credits(id)).toBe(940);
    });

    it("counts every request of an active key (unknown routes, out-of-scope calls, 422, 402, 404 record), and none answered before it", async () => {
      const { key } = await server.newKey({ tier: "free", credits: 0, scopes: ["events"] });
      for (let i = 0; i < 10; i++) {
        expect((await get("/v1/no-such-route", key)).status).toBe(404);
        expect((await get("/v1/projects/aurora-swap", key)).status).toBe(403);
      }
      expect((await get(EVENT, key)).body.meta.rate_limit.remaining).toBe(39);
      for (let i = 0; i < 10; i++) {
        expect((await get(`${EVENT}?limit=1`, key)).status).toBe(422);
        expect((await get("/v1/events/no-such-event", key)).status).toBe(402);
      }
      const last = await get("/v1/events/no-such-event", key);
      expect([last.status, last.body.meta.rate_limit.remaining]).toEqual([402, 18]);
      for (let i = 0; i < 18; i++) await get(EVENT, key);
      // Over the window, every path answers 429 alike: known, unknown, out of scope or a wrong method.
      for (const [method, path] of [["GET", `${EVENT}?limit=1`], ["GET", "/v1/no-such-route"], ["GET", "/v1/projects/aurora-swap"], ["DELETE", EVENT]] as const) {
        const limited = await server.call(method, path, { key });
        expect([limited.status, limited.body.error.code, limited.headers.get("retry-after")]).toEqual([429, "RATE_LIMITED", "50"]);
      }
    });

    it("windows are per key: another key is not limited by the first one's window", async () => {
      const first = await server.newKey({ tier: "free" });
      const second = await server.newKey({ tier: "free" });
      for (let i = 0; i < 61; i++) await get(EVENT, first.key);
      expect((await get(EVENT, first.key)).status).toBe(429);
      const other = await get(EVENT, second.key);
      expect([other.status, other.body.meta.rate_limit.remaining]).toEqual([200, 59]);
    });
  });

  it("each tier reports its documented limit (docs/operations.md) in meta and header alike", async () => {
    const documented: Record<Tier, number> = { free: 60, pro: 600, pro_plus: 1_800, team: 6_000, internal: 1_000_000 };
    for (const [tier, limit] of Object.entries(documented) as Array<[Tier, number]>) {
      const res = await get(EVENT, (await server.newKey({ tier })).key);
      expect(res.body.meta.rate_limit).toEqual({ limit, remaining: limit - 1, reset_at: RESET_1, tier });
      expectHeaderMatchesMeta(res);
    }
  });
});
