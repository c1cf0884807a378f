// Operations 20-25 (decision 31) on fixtures/valid: token detail, token unlocks, the narratives
// snapshot, a narrative, a fund, a stock's news; and narratives found by search when named.
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { createTestService, FIXTURE_NOW, type TestService } from "../_support/server.ts";
import { invalid, notFoundBody, okMeta, staleBody } from "./_expect.ts";

let service: TestService;
beforeAll(async () => {
  service = await createTestService();
});
afterAll(() => service.close());
afterEach(() => {
  service.clock.now = FIXTURE_NOW;
});

const get = async (path: string) => (await service.call("GET", path, { key: service.newKey().key })).body;
const HOUR = 3_600_000;
const DAY = 24 * HOUR;
const noTokenomics = { ...notFoundBody, error: { code: "NOT_FOUND", message: "The token has no served tokenomics." } };

describe("get_token", () => {
  it("gives the token's project and, while the market snapshot is fresh, its place in the universe", async () => {
    expect(await get("/v1/tokens/tok_aur")).toEqual({
      data: {
        kind: "token", id: "tok_aur", symbol: "AUR", name: "Aurora Token",
        project: { id: "proj_aurora", slug: "aurora-swap", name: "Aurora Swap" },
        contracts: [],
        market: {
          as_of: "2026-03-01T09:00:00.000Z", rank: 4, price_usd: 2.5, change_24h_pct: 12, change_7d_pct: -8,
          market_cap_usd: 2_000_000_000, volume_24h_usd: 150_000_000,
        },
      },
      meta: okMeta(1, 999),
    });
  });
  it("gives the token's contracts, ordered by chain: namespace, then the reference as a number", async () => {
    expect((await get("/v1/tokens/tok_usdc")).data.contracts).toEqual([
      { chain_id: "eip155:1", address: "0xA0b86991c6218b36c1d19D4a2e9Eb0cE3606eB48" },
      { chain_id: "eip155:137", address: "0x3c499c542cEF5E3811e1192ce70d8cC03d5c3359" },
      { chain_id: "eip155:8453", address: "0x833589fCD6eDb6E08f4c7C32D4f71b54bdA02913" },
      { chain_id: "solana:5eykt4UsFv8P8NJdTREpY1vzqKqZKvdp", address: "EPjFWdd5AufqSSqeM2qN1xzybapC8G4wEGGkZwyTDt1v" },
    ]);
  });
  it("market is null outside the universe and once the market snapshot is older than 6 hours", async () => {
    // Wrapped: its market observation is ineligible. Orphan: its project is hidden.
    expect((await get("/v1/tokens/tok_weth")).data).toMatchObject({ project: null, market: null });
    expect((await get("/v1/tokens/tok_orphan")).data).toMatchObject({ project: null, market: { rank: 6 } });
    service.clock.now = Date.parse("2026-03-01T15:00:00.001Z");
    expect((await get("/v1/tokens/tok_aur")).data).toMatchObject({ project: { id: "proj_aurora" }, market: null });
  });
  it("404 for hidden and unknown tokens; 422 for a query parameter", async () => {
    expect(await get("/v1/tokens/tok_hidden")).toEqual(notFoundBody);
    expect(await get("/v1/tokens/no_such_token")).toEqual(notFoundBody);
    expect(await get("/v1/tokens/tok_aur?limit=1")).toEqual(invalid([{ path: "limit", code: "unknown_parameter" }]));
  });
});

describe("get_token_unlocks", () => {
  // tok_aur: team, monthly from 2025-01-01 to 2028-01-01 (36 steps of 200M / 36), its first 12 at
  // the 2026-01-01 cliff; investors, 10% at TGE then 9 quarterly steps of 30M, the last at
  // end_at 2027-01-01T00:00:00.250Z. The clock is 2026-03-01T12:00Z: the team's March step is past.
  const team = 200e6 / 36;
  it("the default window (90 days): the next unlocks by time, then bucket", async () => {
    expect(await get("/v1/tokens/tok_aur/unlocks")).toEqual({
      data: {
        kind: "token_unlocks", id: "tok_aur", token: { id: "tok_aur", symbol: "AUR", name: "Aurora Token" },
        as_of: "2025-12-01T00:00:00.000Z", days: 90, limit: 20,
        window_start: "2026-03-01T12:00:00.000Z", window_end: "2026-05-30T12:00:00.000Z",
        unlock_count: 3,
        unlocks: [
          { allocation_bucket: "investors", unlock_at: "2026-04-01T00:00:00.000Z", amount_native: 30e6 },
          { allocation_bucket: "team", unlock_at: "2026-04-01T00:00:00.000Z", amount_native: team },
          { allocation_bucket: "team", unlock_at: "2026-05-01T00:00:00.000Z", amount_native: team },
        ],
      },
      meta: okMeta(1, 999),
    });
  });
  it("a year's window counts every unlock and lists the first `limit`; the last step is at end_at", async () => {
    // Team: April 2026 to March 2027 (12). Investors: the quarterly grid up to 2027-01-01T00:00:00.000Z,
    // 250 ms before end_at, then the last step at end_at itself (5).
    const year = (await get("/v1/tokens/tok_aur/unlocks?days=365&limit=20")).data;
    expect(year.unlock_count).toBe(17);
    expect(year.unlocks).toHaveLength(17);
    expect(year.unlocks.filter((u: { allocation_bucket: string }) => u.allocation_bucket === "investors").map((u: { unlock_at: string }) => u.unlock_at))
      .toEqual(["2026-04-01T00:00:00.000Z", "2026-07-01T00:00:00.000Z", "2026-10-01T00:00:00.000Z", "2027-01-01T00:00:00.000Z", "2027-01-01T00:00:00.250Z"]);
    expect(year.unlocks.at(-1)).toEqual({ allocation_bucket: "team", unlock_at: "2027-03-01T00:00:00.000Z", amount_native: team });
    const two = (await get("/v1/tokens/tok_aur/unlocks?days=365&limit=2")).data;
    expect([two.unlock_count, two.unlocks.length, two.limit]).toEqual([17, 2, 2]);
    // An hour later the window moves with the clock.
    service.clock.now = FIXTURE_NOW + HOUR;
    expect((await get("/v1/tokens/tok_aur/unlocks?days=1")).data).toMatchObject({
      window_start: "2026-03-01T13:00:00.000Z", window_end: "2026-03-02T13:00:00.000Z", unlock_count: 0, unlocks: [],
    });
  });
  it("tokenomics served without vesting schedules: no unlocks", async () => {
    expect((await get("/v1/tokens/tok_bcn/unlocks")).data).toMatchObject({ as_of: "2026-02-15T00:00:00.000Z", unlock_count: 0, unlocks: [] });
  });
  it("404 naming the part for a token without served tokenomics, also once they age past 180 days", async () => {
    expect(await get("/v1/tokens/tok_btc/unlocks")).toEqual(noTokenomics);
    expect(await get("/v1/tokens/no_such_token/unlocks")).toEqual(notFoundBody);
    service.clock.now = Date.parse("2025-12-01T00:00:00.000Z") + 180 * DAY + 1;
    expect((await get("/v1/tokens/tok_aur/unlocks")).error).toEqual(noTokenomics.error);
  });
  it("422 for days and limit outside their ranges", async () => {
    expect(await get("/v1/tokens/tok_aur/unlocks?days=0&limit=21")).toEqual(invalid([{ path: "days", code: "too_small" }, { path: "limit", code: "too_big" }]));
    expect(await get("/v1/tokens/tok_aur/unlocks?days=366")).toEqual(invalid([{ path: "days", code: "too_big" }]));
  });
});

describe("list_narratives and get_narrative", () => {
  it("ranks the narratives with a fresh signal; 500 once the snapshot is older than 24 hours", async () => {
    expect(await get("/v1/narratives")).toEqual({
      data: {
        kind: "narratives", ranking_basis: "service_trending_signal", as_of: "2026-03-01T06:00:00.000Z", limit: 30,
        results: [
          { type: "narrative", rank: 1, id: "nar_restaking", slug: "restaking", name: "Restaking" },
          { type: "narrative", rank: 2, id: "nar_defi", slug: "defi-lending", name: "DeFi Lending" },
        ],
      },
      meta: okMeta(1, 999),
    });
    expect((await get("/v1/narratives?limit=1")).data.results).toEqual([{ type: "narrative", rank: 1, id: "nar_restaking", slug: "restaking", name: "Restaking" }]);
    service.clock.now = Date.parse("2026-03-02T06:00:00.001Z");
    expect((await get("/v1/narratives")).error).toEqual(staleBody.error);
  });
  it("gives a narrative's served projects in curated order and its timeline oldest first", async () => {
    expect(await get("/v1/narratives/defi-lending")).toEqual({
      data: {
        kind: "narrative", id: "nar_defi", slug: "defi-lending", name: "DeFi Lending", limit: 20, project_count: 2,
        projects: [{ id: "proj_beacon", slug: "beacon-lend", name: "Beacon Lend" }, { id: "proj_aurora", slug: "aurora-swap", name: "Aurora Swap" }],
        timeline: [
          { date: "2024-03-01", title: "Aurora Swap raises a seed round" },
          { date: "2025-02-01", title: "Beacon Lend opens isolated markets" },
          { date: "2025-09-15", title: "Lending rates fall below 3%" },
        ],
      },
      meta: okMeta(1, 999),
    });
    expect((await get("/v1/narratives/restaking?limit=1")).data).toMatchObject({ limit: 1, project_count: 3, projects: [{ id: "proj_cobalt" }] });
    // Not ranked (its signal is stale, or it has none), still served.
    expect((await get("/v1/narratives/memecoins")).data).toMatchObject({ project_count: 0, projects: [], timeline: [{ date: "2024-12-01" }] });
    expect((await get("/v1/narratives/real-world-assets")).data).toMatchObject({ project_count: 1, timeline: [] });
  });
  it("404 for hidden and unknown narratives", async () => {
    expect(await get("/v1/narratives/hidden-narrative")).toEqual(notFoundBody);
    expect(await get("/v1/narratives/no-such-narrative")).toEqual(notFoundBody);
  });
});

describe("get_fund", () => {
  it("gives the portfolio from verified rounds, latest first, and the partners with a current role", async () => {
    expect(await get("/v1/funds/atlas-ventures")).toEqual({
      data: {
        kind: "fund", id: "fund_atlas", slug: "atlas-ventures", name: "Atlas Ventures", fund_type: "vc", limit: 20,
        portfolio_count: 2,
        portfolio: [{ id: "proj_beacon", slug: "beacon-lend", name: "Beacon Lend" }, { id: "proj_aurora", slug: "aurora-swap", name: "Aurora Swap" }],
        partner_count: 1,
        partners: [{ id: "person_alice", slug: "alice-nakamoto", full_name: "Alice Nakamoto" }],
      },
      meta: okMeta(1, 999),
    });
    expect((await get("/v1/funds/atlas-ventures?limit=1")).data).toMatchObject({ limit: 1, portfolio_count: 2, portfolio: [{ id: "proj_beacon" }] });
    // Its only round is unverified; nobody works there.
    expect((await get("/v1/funds/cygnus-angels")).data).toMatchObject({ portfolio_count: 0, portfolio: [], partner_count: 0, partners: [] });
  });
  it("the static route /v1/funds/rankings is not a fund; 404 for hidden and unknown funds", async () => {
    expect((await get("/v1/funds/rankings")).data.kind).toBe("fund_rankings");
    expect(await get("/v1/funds/hidden-fund")).toEqual(notFoundBody);
    expect(await get("/v1/funds/no-such-fund")).toEqual(notFoundBody);
  });
});

describe("get_stock_news", () => {
  it("gives the curated stories naming the stock, newest first", async () => {
    expect(await get("/v1/stocks/orbit-holdings/news")).toEqual({
      data: {
        kind: "stock_news", id: "stk_orbit",
        stock: { id: "stk_orbit", slug: "orbit-holdings", name: "Orbit Holdings", ticker: "ORBT" },
        limit: 20, story_count: 2,
        stories: [
          { id: "story:22222222-2222-4222-a222-222222222222", title: "Bitcoin steadies", published_at: "2026-03-01T07:00:00.123Z" },
          { id: "story:11111111-1111-4111-8111-111111111111", title: "Aurora Swap raises a series A", published_at: "2026-02-28T15:30:00.000Z" },
        ],
      },
      meta: okMeta(1, 999),
    });
    // Its one story is not curated.
    expect((await get("/v1/stocks/kumo-exchange/news")).data).toMatchObject({ story_count: 0, stories: [] });
  });
  it("404 for deleted and unknown stocks", async () => {
    expect(await get("/v1/stocks/gone-corp/news")).toEqual(notFoundBody);
    expect(await get("/v1/stocks/no-such-stock/news")).toEqual(notFoundBody);
  });
});

describe("search finds narratives when types names them", () => {
  const search = async (body: unknown) => (await service.call("POST", "/v1/search", { key: service.newKey().key, body })).body.data;
  it("by name or slug, as {type, id, slug, name}; never without being named", async () => {
    expect(await search({ q: "restaking", types: ["narrative", "project"] })).toEqual({
      types: ["project", "narrative"], limit: 10,
      results: [{ type: "narrative", id: "nar_restaking", slug: "restaking", name: "Restaking" }],
    });
    expect((await search({ q: "lending", types: ["narrative"] })).results).toEqual([{ type: "narrative", id: "nar_defi", slug: "defi-lending", name: "DeFi Lending" }]);
    expect((await search({ q: "restaking" })).results).toEqual([]);
    expect((await search({ q: "hidden", types: ["narrative"] })).results).toEqual([]);
  });
});
