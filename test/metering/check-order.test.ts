// Product decision 3 over HTTP: each check alone, and each with the check after it failing too,
// so that the earlier one must answer. Every answer is checked for its meta and headers
// (decisions 4, 11, 12): errors cost 0, the key's balance and window are reported whenever the
// key is known, never for a 401, and Retry-After appears only on a 429.
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { meterBackends } from "../_support/meter-backends.ts";
import { FIXTURE_NOW, startMeteredServer, type HttpResult, type MeteredServer } from "./_http.ts";
import { expectMetering } from "./_expect.ts";

/** 12:00:10.250 inside the window 12:00:00-12:01:00: Retry-After is ceil(49.75 s) = 50. */
const NOW = FIXTURE_NOW + 10_250;
const RESET_AT = "2026-03-01T12:01:00.000Z";
const EVENT = "/v1/events/berlin-node-day";
const MISSING_EVENT = "/v1/events/no-such-event";
const free = (remaining: number) => ({ limit: 60, remaining, reset_at: RESET_AT, tier: "free" });

describe.each(meterBackends)("%s meter", (backend) => {
  let server: MeteredServer;
  beforeAll(async () => { server = await startMeteredServer({ backend }); });
  afterAll(() => server.close());
  beforeEach(() => { server.clock.now = NOW; });

  const get = (path: string, key: string | null, headers?: Record<string, string>) => server.call("GET", path, { key, headers });
  /** The body with its one per-request value blanked, to compare answers with each other. */
  const shape = (res: HttpResult) => ({ status: res.status, body: { ...res.body, meta: { ...res.body.meta, request_id: "*" } } });

  describe("1. 401 INVALID_API_KEY", () => {
    const unknownKey = "cei_" + "A".repeat(40);
    const invalid = {
      status: 401,
      body: {
        error: { code: "INVALID_API_KEY", message: "A valid API key is required: send `Authorization: Bearer <API_KEY>`." },
        meta: { request_id: "*", credits_used: 0 },
      },
    };

    it("missing, malformed and unknown keys get the same body, without credits or rate limit", async () => {
      const { key } = await server.newKey({ tier: "free" });
      const answers = [
        await get(EVENT, null),
        await get(EVENT, null, { authorization: "" }),
        await get(EVENT, null, { authorization: `Basic ${key}` }),
        await get(EVENT, null, { authorization: "Bearer" }),
        await get(EVENT, null, { authorization: `Bearer ${key}!` }),
        await get(EVENT, null, { authorization: `Bearer ${key} ${key}` }),
        await get(EVENT, null, { authorization: `Bearer ${"a".repeat(300)}` }),
        await get(EVENT, unknownKey),
        await get(EVENT, key.slice(0, -1)),
      ];
      for (const res of answers) {
        expect(shape(res)).toEqual(invalid);
        expectMetering(res, { status: 401, code: "INVALID_API_KEY", credits_used: 0 }, NOW);
      }
    });

    it("beats every later check: a caller without a valid key learns nothing about routes or records", async () => {
      const paths: Array<[string, string]> = [
        ["GET", "/v1/no-such-route"], ["DELETE", EVENT], ["GET", "/v1/projects/trending"], ["GET", `${EVENT}?limit=0`],
        ["GET", MISSING_EVENT], ["GET", EVENT], ["POST", "/v1/search"],
      ];
      for (const [method, path] of paths) {
        for (const key of [null, unknownKey]) expect(shape(await server.call(method, path, { key }))).toEqual(invalid);
      }
    });
  });

  describe("2. 403 disabled or revoked beats 3. 404 unknown route", () => {
    it.each(["disabled", "revoked"] as const)("a %s key gets 403 on unknown paths, wrong methods and unreleased operations; nothing counted", async (state) => {
      const { id, key } = await server.newKey({ tier: "free", credits: 7 });
      if (state === "disabled") await server.disableKey(id);
      else await server.revokeKey(id);
      for (const [method, path] of [["GET", "/v1/no-such-route"], ["DELETE", EVENT], ["GET", "/v1/projects/trending"], ["GET", EVENT], ["GET", MISSING_EVENT]] as const) {
        const res = await server.call(method, path, { key });
        expect(res.body.error).toEqual({ code: "FORBIDDEN", message: "The API key is disabled or revoked." });
        expectMetering(res, { status: 403, code: "FORBIDDEN", credits_used: 0, credits_remaining: 7, rate_limit: free(60) }, NOW);
      }
    });
  });

  describe("3. 429 beats 4. 404 unknown route, 5. 403 scope and everything after", () => {
    it("over the window, unknown paths, wrong methods, out-of-scope calls and valid requests all answer 429", async () => {
      const { key } = await server.newKey({ tier: "free", credits: 60, scopes: ["events"] });
      for (let i = 1; i <= 60; i++) {
        expectMetering(await get(EVENT, key), { status: 200, credits_used: 1, credits_remaining: 60 - i, rate_limit: free(60 - i) }, NOW);
      }
      // Balance 0 now, so 402 and 404 are pending as well: 429 answers first, whatever the route.
      const paths: Array<[string, string]> = [
        ["GET", EVENT], ["GET", `${EVENT}?limit=1`], ["GET", `/v1/events/${"x".repeat(161)}`], ["GET", MISSING_EVENT],
        ["GET", "/v1/no-such-route"], ["DELETE", EVENT], ["GET", "/v1/projects/trending"], ["GET", "/v1/projects/aurora-swap"],
        ["POST", "/v1/search"],
      ];
      for (const [method, path] of paths) {
        const res = await server.call(method, path, { key });
        expect(res.body.error, `${method} ${path}`).toEqual({ code: "RATE_LIMITED", message: "Rate limit exceeded; retry after the time given in Retry-After." });
        expectMetering(res, { status: 429, code: "RATE_LIMITED", credits_used: 0, credits_remaining: 0, rate_limit: free(0), retry_after: "50" }, NOW);
      }
    });
  });

  describe("4. 404 unknown route beats 5. 403 scope; both are counted", () => {
    it("a key without the projects scope gets the same 404 for unknown paths and wrong methods, then 403 for the scope", async () => {
      const { key } = await server.newKey({ tier: "free", credits: 5, scopes: ["search"] });
      const notFound = [
        await get("/v1/no-such-route", key),
        await server.call("POST", "/v1/projects/aurora-swap", { key }),
        await server.call("PUT", "/v1/search", { key }),
      ];
      notFound.forEach((res, i) => {
        expect(res.body.error).toEqual({ code: "NOT_FOUND", message: "The requested resource was not found." });
        expectMetering(res, { status: 404, code: "NOT_FOUND", credits_used: 0, credits_remaining: 5, rate_limit: free(59 - i) }, NOW);
      });
      const forbidden = await get("/v1/projects/aurora-swap", key);
      expect(forbidden.body.error).toEqual({ code: "FORBIDDEN", message: "The API key does not have the scope this operation requires." });
      expectMetering(forbidden, { status: 403, code: "FORBIDDEN", credits_used: 0, credits_remaining: 5, rate_limit: free(56) }, NOW);
    });
  });

  describe("6. 422 beats 7. 402", () => {
    it("a key with too few credits gets 422 for an invalid request and 402 for a valid one; both count in the window", async () => {
      const { key } = await server.newKey({ tier: "free", credits: 1 });
      const invalidSearch = await server.call("POST", "/v1/search", { key, body: { q: "%" } });
      expect(invalidSearch.body.error.code).toBe("INVALID_REQUEST");
      expectMetering(invalidSearch, { status: 422, code: "INVALID_REQUEST", credits_used: 0, credits_remaining: 1, rate_limit: free(59) }, NOW);
      const invalidQuery = await get(`${EVENT}?limit=1`, key);
      expect(invalidQuery.body.error.details).toEqual([{ path: "limit", code: expect.any(String), message: expect.any(String) }]);
      expectMetering(invalidQuery, { status: 422, code: "INVALID_REQUEST", credits_used: 0, credits_remaining: 1, rate_limit: free(58) }, NOW);
      // search_entities costs 2 credits; the key holds 1.
      const poor = await server.call("POST", "/v1/search", { key, body: { q: "aurora" } });
      expect(poor.body.error).toEqual({ code: "INSUFFICIENT_CREDITS", message: "This operation costs 2 credits; the API key has 1 credit. Ask the operator to credit the key." });
      expectMetering(poor, { status: 402, code: "INSUFFICIENT_CREDITS", credits_used: 0, credits_remaining: 1, rate_limit: free(57) }, NOW);
    });
  });

  describe("7. 402 beats 8. 404 record", () => {
    it("a key with no credits gets 402 for a missing record; a key with credits gets 404", async () => {
      const broke = await server.newKey({ tier: "free", credits: 0 });
      expectMetering(await get(MISSING_EVENT, broke.key), { status: 402, code: "INSUFFICIENT_CREDITS", credits_used: 0, credits_remaining: 0, rate_limit: free(59) }, NOW);
      const funded = await server.newKey({ tier: "free", credits: 3 });
      expectMetering(await get(MISSING_EVENT, funded.key), { status: 404, code: "NOT_FOUND", credits_used: 0, credits_remaining: 3, rate_limit: free(59) }, NOW);
    });
  });

  describe("8. 404 record vs 9. 200", () => {
    it("a missing record costs nothing but counts; a present one is charged, and then the balance is spent", async () => {
      const { key } = await server.newKey({ tier: "free", credits: 1 });
      const missing = await get(MISSING_EVENT, key);
      expect(missing.body.error).toEqual({ code: "NOT_FOUND", message: "The requested resource was not found." });
      expectMetering(missing, { status: 404, code: "NOT_FOUND", credits_used: 0, credits_remaining: 1, rate_limit: free(59) }, NOW);
      const ok = await get(EVENT, key);
      expect(ok.body.data).toMatchObject({ type: "event", slug: "berlin-node-day" });
      expectMetering(ok, { status: 200, credits_used: 1, credits_remaining: 0, rate_limit: free(58) }, NOW);
      expectMetering(await get(EVENT, key), { status: 402, code: "INSUFFICIENT_CREDITS", credits_used: 0, credits_remaining: 0, rate_limit: free(57) }, NOW);
    });
  });
});
