// Operations 11-13: tokenomics, market top movers, market snapshot.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createTestService, FIXTURE_NOW, type TestService } from "../_support/server.ts";
import { invalid, missingPartBody, notFoundBody, okMeta, staleBody } from "./_expect.ts";

let service: TestService;
beforeAll(async () => {
  service = await createTestService();
});
afterAll(() => service.close());

const get = (path: string) => service.call("GET", path, { key: service.newKey().key });

async function at(iso: string, path: string) {
  service.clock.now = Date.parse(iso);
  try {
    return await get(path);
  } finally {
    service.clock.now = FIXTURE_NOW;
  }
}

describe("get_tokenomics", () => {
  it("returns the verified fields", async () => {
    const res = await get("/v1/tokenomics/tok_aur");
    expect(res.body).toEqual({
      data: {
        kind: "tokenomics",
        as_of: "2025-12-01T00:00:00.000Z",
        token: { id: "tok_aur", symbol: "AUR", name: "Aurora Token" },
        profile: { model_type: "deflationary" },
        allocations: [
          { bucket: "team", percent_supply: 20, amount_native: 200000000 },
          { bucket: "community", percent_supply: 50, amount_native: 500000000 },
          { bucket: "investors", percent_supply: 30, amount_native: 300000000 },
        ],
        vesting_schedules: [
          {
            allocation_bucket: "team", start_at: "2025-01-01T00:00:00.000Z", cliff_at: "2026-01-01T00:00:00.000Z",
            end_at: "2028-01-01T00:00:00.000Z", cadence: "monthly", percent_unlocked_at_tge: 0, amount_native: 200000000,
          },
          {
            allocation_bucket: "investors", start_at: "2025-01-01T00:00:00.000Z", cliff_at: null,
            end_at: "2027-01-01T00:00:00.250Z", cadence: "quarterly", percent_unlocked_at_tge: 10, amount_native: 300000000,
          },
        ],
        utilities: [{ utility_type: "governance" }, { utility_type: "fee_discount" }],
      },
      meta: okMeta(1, 999),
    });
  });
  it("gives model_type null and empty lists when those fields were not kept", async () => {
    const res = await get("/v1/tokenomics/tok_bcn");
    expect(res.body.data).toEqual({
      kind: "tokenomics", as_of: "2026-02-15T00:00:00.000Z", token: { id: "tok_bcn", symbol: "BCN", name: "Beacon" },
      profile: { model_type: null }, allocations: [], vesting_schedules: [], utilities: [{ utility_type: "staking" }],
    });
  });
  it("404 for hidden or unknown tokens as for an unknown path; a served token without tokenomics says so", async () => {
    for (const id of ["tok_hidden", "nope", "x".repeat(160)]) expect((await get(`/v1/tokenomics/${id}`)).body).toEqual(notFoundBody);
    expect((await get("/v1/tokenomics/tok_btc")).body).toEqual(missingPartBody("The token has no fresh tokenomics."));
  });
  it("422 for an id of 161 characters or an empty id", async () => {
    expect((await get(`/v1/tokenomics/${"x".repeat(161)}`)).body).toEqual(invalid([{ path: "id", code: "too_big" }]));
    expect((await get("/v1/tokenomics/")).body).toEqual(invalid([{ path: "id", code: "too_small" }]));
  });
  it("404 once the oldest kept field is older than 180 days", async () => {
    expect((await at("2026-05-30T00:00:00.000Z", "/v1/tokenomics/tok_aur")).status).toBe(200);
    const stale = await at("2026-05-30T00:00:00.001Z", "/v1/tokenomics/tok_aur");
    expect(stale.status).toBe(404);
    expect(stale.body.error.message).toBe("The token has no fresh tokenomics.");
  });
});

const mover = (rank: number, direction: string, id: string, symbol: string, name: string, price_usd: number, change_pct: number, market_cap_usd: number, volume_24h_usd: number) =>
  ({ type: "token", rank, direction, id, symbol, name, price_usd, change_pct, market_cap_usd, volume_24h_usd });

describe("list_market_top_movers", () => {
  it("defaults to the 24h period and 10 entries per side", async () => {
    const res = await get("/v1/markets/top-movers");
    expect(res.body).toEqual({
      data: {
        kind: "market_top_movers", as_of: "2026-03-01T09:00:00.000Z", period: "24h", limit: 10,
        gainers: [
          mover(1, "gainer", "tok_aur", "AUR", "Aurora Token", 2.5, 12, 2000000000, 150000000),
          mover(2, "gainer", "tok_btc", "BTC", "Bitcoin", 60000, 2.5, 1200000000000, 30000000000),
          mover(3, "gainer", "tok_usdc", "USDC", "USD Coin", 1, 0.01, 30000000000, 5000000000),
        ],
        losers: [
          mover(1, "loser", "tok_bcn", "BCN", "Beacon", 0.9, -6, 900000000, 40000000),
          mover(2, "loser", "tok_eth", "ETH", "Ethereum", 3300, -1.5, 400000000000, 15000000000),
        ],
      },
      meta: okMeta(1, 999),
    });
  });
  it("period 7d and limit apply to both lists", async () => {
    const res = await get("/v1/markets/top-movers?period=7d&limit=1");
    expect(res.body.data).toMatchObject({ period: "7d", limit: 1 });
    expect(res.body.data.gainers.map((m: { id: string }) => m.id)).toEqual(["tok_bcn"]);
    expect(res.body.data.losers.map((m: { id: string }) => m.id)).toEqual(["tok_aur"]);
    expect((await get("/v1/markets/top-movers?limit=20")).status).toBe(200);
  });
  it("422 for an unknown period and limits 0 and 21", async () => {
    expect((await get("/v1/markets/top-movers?period=1h")).body).toEqual(invalid([{ path: "period", code: "invalid_value" }]));
    expect((await get("/v1/markets/top-movers?limit=0")).body).toEqual(invalid([{ path: "limit", code: "too_small" }]));
    expect((await get("/v1/markets/top-movers?limit=21")).body).toEqual(invalid([{ path: "limit", code: "too_big" }]));
  });
  it("500 once the market snapshot is older than 6 hours", async () => {
    expect((await at("2026-03-01T15:00:00.000Z", "/v1/markets/top-movers")).status).toBe(200);
    const stale = await at("2026-03-01T15:00:00.001Z", "/v1/markets/top-movers");
    expect(stale.status).toBe(500);
    expect(stale.body.error).toEqual(staleBody.error);
  });
});

describe("get_market_snapshot", () => {
  it("returns the represented universe's aggregates", async () => {
    const res = await get("/v1/markets/snapshot");
    expect(res.body).toEqual({
      data: {
        kind: "market_snapshot", as_of: "2026-03-01T09:00:00.000Z", universe: "top_200_market_assets",
        represented_asset_count: 6, represented_market_cap_usd: 1633800000000, represented_volume_24h_usd: 50191000000,
        btc_price_usd: 60000, btc_change_24h_pct: 2.5, btc_share_of_represented_market_cap_pct: 73.44840249724568,
        eth_price_usd: 3300, eth_change_24h_pct: -1.5, eth_share_of_represented_market_cap_pct: 24.48280083241523,
      },
      meta: okMeta(1, 999),
    });
  });
  it("takes no parameters", async () => {
    expect((await get("/v1/markets/snapshot?limit=1")).body).toEqual(invalid([{ path: "limit", code: "unknown_parameter" }]));
  });
  it("500 once older than 6 hours", async () => {
    expect((await at("2026-03-01T15:00:00.001Z", "/v1/markets/snapshot")).body.error.code).toBe("INTERNAL_ERROR");
  });
});
