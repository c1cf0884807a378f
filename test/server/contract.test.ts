// One table over every operation: envelopes, headers, request ids, strict field sets, the 401
// cases, scope, unknown routes and methods, JSON on every error, and a scan of every body served.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { routes } from "../../server/routes.ts";
import { operationIds, operationPolicy, scopes, type OperationId } from "../../server/policy.ts";
import { anyErrorEnvelope as errorEnvelope, meta } from "../../server/envelope.ts";
import { createTestService, type CallResult, type TestService } from "../_support/server.ts";

let service: TestService;
beforeAll(async () => {
  service = await createTestService({ releaseTrendingProjects: true });
});
afterAll(() => service.close());

interface Case { method: string; ok: string; invalid: string; body?: unknown; invalidBody?: unknown }

/** For each operation: one request that succeeds and one that is invalid. */
const cases: Record<OperationId, Case> = {
  search_entities: { method: "POST", ok: "/v1/search", body: { q: "aurora" }, invalid: "/v1/search", invalidBody: { q: "%" } },
  search_people: { method: "GET", ok: "/v1/people/search?query=alice", invalid: "/v1/people/search?query=alice&limit=21" },
  get_person_investments: { method: "GET", ok: "/v1/people/alice-nakamoto/investments", invalid: "/v1/people/alice-nakamoto/investments?limit=0" },
  get_person_roles: { method: "GET", ok: "/v1/people/alice-nakamoto/roles", invalid: "/v1/people/alice-nakamoto/roles?limit=x" },
  get_project: { method: "GET", ok: "/v1/projects/aurora-swap", invalid: "/v1/projects/aurora-swap?x=1" },
  get_project_features: { method: "GET", ok: "/v1/projects/aurora-swap/features", invalid: "/v1/projects/aurora-swap/features?limit=21" },
  get_project_events: { method: "GET", ok: "/v1/projects/aurora-swap/events", invalid: "/v1/projects/aurora-swap/events?limit=0" },
  get_project_funding: { method: "GET", ok: "/v1/projects/aurora-swap/funding", invalid: "/v1/projects/aurora-swap/funding?limit=1" },
  get_project_market: { method: "GET", ok: "/v1/projects/aurora-swap/market", invalid: `/v1/projects/${"a".repeat(161)}/market` },
  list_trending_projects: { method: "GET", ok: "/v1/projects/trending", invalid: "/v1/projects/trending?tier=warm" },
  get_tokenomics: { method: "GET", ok: "/v1/tokenomics/tok_aur", invalid: `/v1/tokenomics/${"t".repeat(161)}` },
  list_market_top_movers: { method: "GET", ok: "/v1/markets/top-movers", invalid: "/v1/markets/top-movers?period=30d" },
  get_market_snapshot: { method: "GET", ok: "/v1/markets/snapshot", invalid: "/v1/markets/snapshot?period=24h" },
  list_stock_rankings: { method: "GET", ok: "/v1/stocks/rankings", invalid: "/v1/stocks/rankings?limit=31" },
  list_fund_rankings: { method: "GET", ok: "/v1/funds/rankings", invalid: "/v1/funds/rankings?fund_type=bank" },
  list_trending_entities: { method: "GET", ok: "/v1/discover/trending", invalid: "/v1/discover/trending?date=2020-01-01" },
  get_news: { method: "GET", ok: "/v1/news/story:11111111-1111-4111-8111-111111111111", invalid: "/v1/news/story:1" },
  get_x_account: { method: "GET", ok: "/v1/x-accounts/xa_wqzvo7hriklvfiutr25qfkq6hf", invalid: `/v1/x-accounts/${"x".repeat(161)}` },
  get_event: { method: "GET", ok: "/v1/events/berlin-node-day", invalid: `/v1/events/${"e".repeat(161)}` },
  get_token: { method: "GET", ok: "/v1/tokens/tok_aur", invalid: "/v1/tokens/tok_aur?limit=1" },
  get_token_unlocks: { method: "GET", ok: "/v1/tokens/tok_aur/unlocks", invalid: "/v1/tokens/tok_aur/unlocks?days=366" },
  list_narratives: { method: "GET", ok: "/v1/narratives", invalid: "/v1/narratives?limit=31" },
  get_narrative: { method: "GET", ok: "/v1/narratives/defi-lending", invalid: "/v1/narratives/defi-lending?limit=21" },
  get_fund: { method: "GET", ok: "/v1/funds/atlas-ventures", invalid: "/v1/funds/atlas-ventures?limit=0" },
  get_stock_news: { method: "GET", ok: "/v1/stocks/orbit-holdings/news", invalid: `/v1/stocks/${"s".repeat(161)}/news` },
  get_key: { method: "GET", ok: "/v1/key", invalid: "/v1/key?limit=1" },
};


const served: CallResult[] = [];
const call = async (method: string, path: string, options: Parameters<TestService["call"]>[2] = {}) => {
  const res = await service.call(method, path, options);
  served.push(res);
  return res;
};

/** The headers every response carries, and their agreement with meta. */
function expectHeaders(res: CallResult): void {
  expect(res.headers.get("content-type")).toBe("application/json; charset=utf-8");
  expect(res.headers.get("cache-control")).toBe("no-store");
  expect(res.headers.get("x-service-request-id")).toBe(res.body.meta.request_id);
  expect(res.headers.get("x-service-credits-used")).toBe(String(res.body.meta.credits_used));
  const m = res.body.meta;
  if (m.credits_remaining !== undefined) expect(res.headers.get("x-service-credits-remaining")).toBe(String(m.credits_remaining));
  if (m.rate_limit !== undefined) {
    const r = m.rate_limit;
    expect(res.headers.get("x-service-rate-limit")).toBe(`limit=${r.limit};remaining=${r.remaining};reset_at=${r.reset_at};tier=${r.tier}`);
    expect(res.headers.get("ratelimit-policy")).toBe(`"default";q=${r.limit};w=60`);
    expect(res.headers.get("ratelimit")).toMatch(new RegExp(`^"default";r=${r.remaining};t=\\d+$`));
  } else {
    expect(res.headers.get("x-service-rate-limit")).toBeNull();
  }
  for (const name of ["x-service-credits-used", "x-service-credits-remaining"]) {
    const value = res.headers.get(name);
    if (value !== null) expect(value).toMatch(/^\d{1,20}$/);
  }
  expect((res.headers.get("x-service-rate-limit") ?? "").length).toBeLessThanOrEqual(512);
  if (res.status !== 429) expect(res.headers.get("retry-after")).toBeNull();
}

function expectError(res: CallResult, status: number, code: string): void {
  expect(res.status).toBe(status);
  errorEnvelope.parse(res.body);
  expect(res.body.error.code).toBe(code);
  expect(res.body.meta.credits_used).toBe(0);
  expectHeaders(res);
}

describe("every operation", () => {
  it("has exactly one route, and the table covers every operation id", () => {
    expect(routes.map((r) => r.operation).sort()).toEqual([...operationIds].sort());
    expect(Object.keys(cases).sort()).toEqual([...operationIds].sort());
  });

  describe.each(routes.map((route) => [route.operation, route] as const))("%s", (operation, route) => {
    const c = cases[operation];
    const { scope, cost } = operationPolicy[operation];

    it("200: {data, meta}, strict data, charged its cost, headers", async () => {
      const res = await call(c.method, c.ok, { key: service.newKey({ credits: 100 }).key, body: c.body });
      expect(res.status).toBe(200);
      expect(Object.keys(res.body)).toEqual(["data", "meta"]);
      route.handler.response.parse(res.body.data);
      expect(meta.parse(res.body.meta)).toEqual({ request_id: expect.any(String), credits_used: cost, credits_remaining: 100 - cost, rate_limit: expect.any(Object) });
      expectHeaders(res);
    });

    it("422: error envelope with details, nothing charged", async () => {
      const res = await call(c.method, c.invalid, { key: service.newKey({ credits: 100 }).key, body: c.invalidBody });
      expectError(res, 422, "INVALID_REQUEST");
      expect(res.body.error.details.length).toBeGreaterThan(0);
      expect(res.body.meta.credits_remaining).toBe(100);
    });

    it("401 for a missing, malformed or unknown key, with one body shape", async () => {
      const shapes = [];
      for (const headers of [{} as Record<string, string>, { authorization: "Basic abc" }, { authorization: "Bearer" }, { authorization: "Bearer cei_unknownkey000" }, { authorization: "bearer  a b" }]) {
        const res = await call(c.method, c.ok, { key: null, headers, body: c.body });
        expectError(res, 401, "INVALID_API_KEY");
        shapes.push({ ...res.body, meta: { ...res.body.meta, request_id: "" } });
      }
      expect(new Set(shapes.map((s) => JSON.stringify(s))).size).toBe(1);
      expect(shapes[0]!.meta).toEqual({ request_id: "", credits_used: 0 });
    });

    it(scope === null ? "needs no scope: 200 for a key with any one scope" : "403 without its scope, counted in the window (decision 27)", async () => {
      const other = scopes.find((s) => s !== scope)!;
      const res = await call(c.method, c.ok, { key: service.newKey({ scopes: [other] }).key, body: c.body });
      if (scope === null) {
        expect(res.status).toBe(200);
        return;
      }
      expectError(res, 403, "FORBIDDEN");
      expect(res.body.meta.rate_limit.remaining).toBe(599);
    });

    it("404 for a method the path does not list", async () => {
      const res = await call(c.method === "GET" ? "DELETE" : "PUT", c.ok.split("?")[0]!, { key: service.newKey().key });
      expectError(res, 404, "NOT_FOUND");
    });
  });
});

describe("routes that do not exist", () => {
  it.each(["/", "/v1", "/v2/search", "/v1/projects/aurora-swap/unknown", "/v1/people", "/favicon.ico"])("404 JSON after authentication: %s", async (path) => {
    const res = await call("GET", path);
    expectError(res, 404, "NOT_FOUND");
    expect(res.body.meta.rate_limit).toBeDefined();
    expectError(await call("GET", path, { key: null }), 401, "INVALID_API_KEY");
  });
  it("OPTIONS is 404 JSON too", async () => {
    expectError(await call("OPTIONS", "/v1/projects/aurora-swap"), 404, "NOT_FOUND");
  });
});

describe("every body served", () => {
  const forbiddenKey = /source|provider|evidence|raw|payload|media|handle|profile_|bio|metric|follower|curator|ingest|score|heat|signal|click/i;
  function keysOf(value: unknown, into: string[] = []): string[] {
    if (Array.isArray(value)) for (const item of value) keysOf(item, into);
    else if (value !== null && typeof value === "object") {
      for (const [key, inner] of Object.entries(value)) {
        into.push(key);
        keysOf(inner, into);
      }
    }
    return into;
  }
  it("has no key named like a source, provider, evidence, raw payload, media or handle field", () => {
    expect(served.length).toBeGreaterThan(150);
    const keys = new Set(served.flatMap((res) => keysOf(res.body)));
    expect([...keys].filter((key) => forbiddenKey.test(key))).toEqual([]);
  });
  it("carries none of the fixtures' leak markers", () => {
    for (const res of served) expect(res.text).not.toMatch(/LEAKMARKER/);
  });
  it("is JSON with a fresh, valid request id", () => {
    const ids = served.map((res) => res.body.meta.request_id as string);
    expect(new Set(ids).size).toBe(ids.length);
  });
});
