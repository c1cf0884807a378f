// Operations 5-10: project detail, features, events, funding, market, trending projects.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createTestService, FIXTURE_NOW, type TestService } from "../_support/server.ts";
import { invalid, missingPartBody, notFoundBody, okMeta, staleBody } from "./_expect.ts";

let service: TestService;
let released: TestService;
beforeAll(async () => {
  service = await createTestService();
  released = await createTestService({ releaseTrendingProjects: true });
});
afterAll(() => {
  service.close();
  released.close();
});

const get = (path: string, on: TestService = service) => on.call("GET", path, { key: on.newKey().key });
const aurora = { id: "proj_aurora", slug: "aurora-swap", name: "Aurora Swap" };

describe("get_project", () => {
  it("returns the project identity", async () => {
    const res = await get("/v1/projects/aurora-swap");
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ data: { type: "project", ...aurora }, meta: okMeta(1, 999) });
  });
  it.each(["hidden-project", "deleted-project", "no-such-project", "x".repeat(160)])("404 for %s", async (slug) => {
    const res = await get(`/v1/projects/${slug}`);
    expect(res.status).toBe(404);
    expect(res.body).toEqual(notFoundBody);
  });
  it("422 for a slug of 161 characters, and for an empty slug", async () => {
    for (const path of [`/v1/projects/${"x".repeat(161)}`, "/v1/projects//features"]) {
      const res = await get(path);
      expect(res.status).toBe(422);
      expect(res.body).toEqual(invalid([{ path: "slug", code: expect.stringMatching(/too_(big|small)/) as unknown as string }]));
    }
  });
  it("422 for an unknown query parameter", async () => {
    const res = await get("/v1/projects/aurora-swap?limit=1");
    expect(res.status).toBe(422);
    expect(res.body).toEqual(invalid([{ path: "limit", code: "unknown_parameter" }]));
  });
});

describe("get_project_features", () => {
  it("returns every kept feature with its fields", async () => {
    const res = await get("/v1/projects/aurora-swap/features");
    expect(res.body).toEqual({
      data: {
        kind: "project_features", id: "proj_aurora", project: aurora, limit: 20, feature_count: 2,
        features: [
          {
            feature_id: "feat_aurora_pool", feature_name: "liquidity pools", display_name: "Liquidity Pools", category: "defi",
            status: "active", primary_url: "https://example.com/feat_aurora_pool", docs_url: null,
            app_url: "https://app.example.com/pools", chain_ids: ["ethereum"], last_verified_at: "2026-02-25T10:00:00.500Z",
          },
          {
            feature_id: "feat_aurora_swap", feature_name: "token swap", display_name: "Token Swap", category: "defi",
            status: "active", primary_url: "https://example.com/feat_aurora_swap", docs_url: "https://docs.example.com/swap",
            app_url: null, chain_ids: ["ethereum", "arbitrum"], last_verified_at: "2026-02-20T10:00:00.000Z",
          },
        ],
      },
      meta: okMeta(1, 999),
    });
  });
  it("caps the list at 20 while feature_count keeps the total; limit applies inside", async () => {
    const all = await get("/v1/projects/beacon-lend/features?limit=20");
    expect(all.body.data.feature_count).toBe(22);
    expect(all.body.data.features).toHaveLength(20);
    const one = await get("/v1/projects/beacon-lend/features?limit=1");
    expect(one.body.data.features.map((f: { feature_id: string }) => f.feature_id)).toEqual(["feat_beacon_22"]);
    expect(one.body.data.limit).toBe(1);
  });
  it.each([["0", "too_small"], ["21", "too_big"], ["abc", "invalid_format"], ["1.5", "invalid_format"], ["-1", "invalid_format"]])(
    "422 for limit=%s", async (limit, code) => {
      const res = await get(`/v1/projects/aurora-swap/features?limit=${limit}`);
      expect(res.status).toBe(422);
      expect(res.body).toEqual(invalid([{ path: "limit", code }]));
    });
  it("422 for a repeated limit", async () => {
    const res = await get("/v1/projects/aurora-swap/features?limit=1&limit=2");
    expect(res.body).toEqual(invalid([{ path: "limit", code: "repeated_parameter" }]));
  });
  it("404 for a hidden project", async () => {
    expect((await get("/v1/projects/hidden-project/features")).body).toEqual(notFoundBody);
  });
});

describe("get_project_events", () => {
  it("returns id, type and occurred_at only", async () => {
    const res = await get("/v1/projects/aurora-swap/events");
    expect(res.body).toEqual({
      data: {
        kind: "project_events", id: "proj_aurora", project: aurora, limit: 20, event_count: 2,
        events: [
          { id: "pev_aurora_v2", type: "protocol_upgrade", occurred_at: "2026-01-15T09:30:00.000Z" },
          { id: "pev_aurora_launch", type: "mainnet_launch", occurred_at: "2025-06-01T00:00:00.000Z" },
        ],
      },
      meta: okMeta(1, 999),
    });
  });
  it("limit 1 and 20 inside, 0 and 21 outside", async () => {
    expect((await get("/v1/projects/beacon-lend/events?limit=1")).body.data.events).toHaveLength(1);
    expect((await get("/v1/projects/beacon-lend/events?limit=20")).body.data.events).toHaveLength(20);
    expect((await get("/v1/projects/beacon-lend/events?limit=0")).status).toBe(422);
    expect((await get("/v1/projects/beacon-lend/events?limit=21")).status).toBe(422);
  });
  it("404 for an unknown project", async () => {
    expect((await get("/v1/projects/nope/events")).body).toEqual(notFoundBody);
  });
});

describe("get_project_funding", () => {
  it("returns rounds without investors or sources", async () => {
    const res = await get("/v1/projects/aurora-swap/funding");
    expect(res.body).toEqual({
      data: {
        kind: "project_funding", id: "proj_aurora", project: aurora, round_count: 2,
        rounds: [
          { round_type: "series_a", amount_usd: 12000000.5, announced_at: "2025-05-10T00:00:00.000Z" },
          { round_type: "seed", amount_usd: 2500000, announced_at: "2024-03-01T00:00:00.000Z" },
        ],
      },
      meta: okMeta(1, 999),
    });
  });
  it("at most 20 rounds; no limit parameter", async () => {
    const res = await get("/v1/projects/beacon-lend/funding");
    expect(res.body.data.round_count).toBe(21);
    expect(res.body.data.rounds).toHaveLength(20);
    expect((await get("/v1/projects/beacon-lend/funding?limit=5")).body).toEqual(invalid([{ path: "limit", code: "unknown_parameter" }]));
  });
  it("404 for a deleted project", async () => {
    expect((await get("/v1/projects/deleted-project/funding")).body).toEqual(notFoundBody);
  });
});

describe("get_project_market", () => {
  it("returns the fresh TVL snapshot", async () => {
    const res = await get("/v1/projects/aurora-swap/market");
    expect(res.body).toEqual({
      data: { kind: "project_market", id: "proj_aurora", project: aurora, as_of: "2026-02-28", tvl_usd: 152500000.25 },
      meta: okMeta(1, 999),
    });
  });
  it("404 saying what is missing for a project without a consistent TVL mapping; an absent one's 404 says nothing", async () => {
    expect((await get("/v1/projects/beacon-lend/market")).body).toEqual(missingPartBody("The project has no fresh TVL snapshot."));
    for (const slug of ["hidden-project", "deleted-project", "no-such-project"]) {
      expect((await get(`/v1/projects/${slug}/market`)).body).toEqual(notFoundBody);
    }
  });
  it("404 once the TVL is older than its freshness bound (2 days from 2026-02-28T00:00Z)", async () => {
    service.clock.now = Date.parse("2026-03-02T00:00:00.000Z");
    try {
      expect((await get("/v1/projects/aurora-swap/market")).status).toBe(200);
      service.clock.now = Date.parse("2026-03-02T00:00:00.001Z");
      const res = await get("/v1/projects/aurora-swap/market");
      expect(res.status).toBe(404);
      expect(res.body.error).toEqual({ code: "NOT_FOUND", message: "The project has no fresh TVL snapshot." });
    } finally {
      service.clock.now = FIXTURE_NOW;
    }
  });
});

describe("list_trending_projects", () => {
  it("is 404 like any unknown route until released", async () => {
    // A key each: both are counted, so each answer reports its key's first request.
    const trending = await service.call("GET", "/v1/projects/trending", { key: service.newKey().key });
    const unknown = await service.call("GET", "/v1/projects/nothing/here", { key: service.newKey().key });
    expect(trending.status).toBe(404);
    expect({ ...trending.body, meta: { ...trending.body.meta, request_id: "" } })
      .toEqual({ ...unknown.body, meta: { ...unknown.body.meta, request_id: "" } });
  });
  it("lists the snapshot with response-local ranks when released", async () => {
    const res = await get("/v1/projects/trending", released);
    expect(res.body).toEqual({
      data: {
        kind: "trending_projects", ranking_basis: "service_trending_signal", as_of: "2026-02-28T18:00:00.000Z",
        limit: 30, tier: null,
        results: [
          { type: "project", rank: 1, ...aurora, hot_tier: "viral" },
          { type: "project", rank: 2, id: "proj_beacon", slug: "beacon-lend", name: "Beacon Lend", hot_tier: "hot" },
          { type: "project", rank: 3, id: "proj_delta", slug: "delta-bridge", name: "Delta Bridge", hot_tier: "hot" },
          { type: "project", rank: 4, id: "proj_echo", slug: "echo-dao", name: "Echo DAO", hot_tier: "rising" },
        ],
      },
      meta: okMeta(1, 999),
    });
  });
  it("filters by tier inside the snapshot and re-ranks; limit never refills", async () => {
    const hot = await get("/v1/projects/trending?tier=hot&limit=1", released);
    expect(hot.body.data).toMatchObject({ tier: "hot", limit: 1 });
    expect(hot.body.data.results).toEqual([{ type: "project", rank: 1, id: "proj_beacon", slug: "beacon-lend", name: "Beacon Lend", hot_tier: "hot" }]);
    expect((await get("/v1/projects/trending?tier=early", released)).body.data.results).toEqual([]);
    expect((await get("/v1/projects/trending?limit=30", released)).body.data.results).toHaveLength(4);
  });
  it("422 for limit 0 or 31 and an unknown tier", async () => {
    expect((await get("/v1/projects/trending?limit=31", released)).body).toEqual(invalid([{ path: "limit", code: "too_big" }]));
    expect((await get("/v1/projects/trending?limit=0", released)).body).toEqual(invalid([{ path: "limit", code: "too_small" }]));
    expect((await get("/v1/projects/trending?tier=cold", released)).body).toEqual(invalid([{ path: "tier", code: "invalid_value" }]));
  });
  it("500 INTERNAL_ERROR once the snapshot is older than a day", async () => {
    released.clock.now = Date.parse("2026-03-01T18:00:00.000Z");
    try {
      expect((await get("/v1/projects/trending", released)).status).toBe(200);
      released.clock.now = Date.parse("2026-03-01T18:00:00.001Z");
      const res = await get("/v1/projects/trending", released);
      expect(res.status).toBe(500);
      expect(res.body.error).toEqual(staleBody.error);
    } finally {
      released.clock.now = FIXTURE_NOW;
    }
  });
});
