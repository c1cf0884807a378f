// Operations 14-16: stock rankings, fund rankings, trending entities.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createTestService, FIXTURE_NOW, type TestService } from "../_support/server.ts";
import { invalid, okMeta, staleBody } from "./_expect.ts";

let service: TestService;
beforeAll(async () => {
  service = await createTestService();
});
afterAll(() => service.close());

const get = (path: string) => service.call("GET", path, { key: service.newKey().key });
const ids = (res: { body: { data: { results: Array<{ id: string; rank: number }> } } }) => res.body.data.results.map((r) => `${r.rank}:${r.id}`);

async function at(iso: string, path: string) {
  service.clock.now = Date.parse(iso);
  try {
    return await get(path);
  } finally {
    service.clock.now = FIXTURE_NOW;
  }
}

const stock = (rank: number, id: string, slug: string, name: string, ticker: string, exchange: string, region: string, crypto_angle: string, ipo_date: string, is_pre_ipo: boolean) =>
  ({ type: "stock", rank, id, slug, name, ticker, exchange, region, crypto_angle, ipo_date, is_pre_ipo });

describe("list_stock_rankings", () => {
  it("lists the recent-IPO snapshot with default limit 12", async () => {
    const res = await get("/v1/stocks/rankings");
    expect(res.body).toEqual({
      data: {
        kind: "stock_rankings", limit: 12, region: "all", angle: "all", ranking_basis: "ipo_recent",
        results: [
          stock(1, "stk_future", "future-custody", "Future Custody", "FTCY", "NYSE", "us", "custody", "2026-04-15", true),
          stock(2, "stk_kumo", "kumo-exchange", "Kumo Exchange", "KUMO", "TSE", "jp", "exchange", "2026-01-20", false),
          stock(3, "stk_tie", "tie-tokenizer", "Tie Tokenizer", "TIET", "LSE", "uk", "tokenizer", "2026-01-20", false),
          stock(4, "stk_orbit", "orbit-holdings", "Orbit Holdings", "ORBT", "NASDAQ", "us", "btc-treasury", "2025-11-12", false),
          stock(5, "stk_hanbit", "hanbit-mining", "Hanbit Mining", "HNBT", "KRX", "kr", "mining", "2024-06-03", false),
        ],
      },
      meta: okMeta(1, 999),
    });
  });
  it("filters inside the snapshot, re-ranks, and never refills", async () => {
    expect(ids(await get("/v1/stocks/rankings?region=us"))).toEqual(["1:stk_future", "2:stk_orbit"]);
    expect(ids(await get("/v1/stocks/rankings?angle=mining"))).toEqual(["1:stk_hanbit"]);
    expect(ids(await get("/v1/stocks/rankings?region=us&limit=1"))).toEqual(["1:stk_future"]);
    expect(ids(await get("/v1/stocks/rankings?region=jp&angle=mining"))).toEqual([]);
    expect((await get("/v1/stocks/rankings?region=all&angle=all&limit=30")).body.data).toMatchObject({ region: "all", angle: "all", limit: 30 });
  });
  it("422 for unknown region or angle and limits 0 and 31", async () => {
    expect((await get("/v1/stocks/rankings?region=eu")).body).toEqual(invalid([{ path: "region", code: "invalid_value" }]));
    expect((await get("/v1/stocks/rankings?angle=defi")).body).toEqual(invalid([{ path: "angle", code: "invalid_value" }]));
    expect((await get("/v1/stocks/rankings?limit=0")).body).toEqual(invalid([{ path: "limit", code: "too_small" }]));
    expect((await get("/v1/stocks/rankings?limit=31")).body).toEqual(invalid([{ path: "limit", code: "too_big" }]));
  });
});

const fund = (rank: number, id: string, slug: string, name: string, fund_type: string) => ({ type: "fund", rank, id, slug, name, fund_type });

describe("list_fund_rankings", () => {
  it("lists the score snapshot with default limit 30", async () => {
    const res = await get("/v1/funds/rankings");
    expect(res.body).toEqual({
      data: {
        kind: "fund_rankings", ranking_basis: "service_score", as_of: "2026-02-10T00:00:00.000Z", limit: 30, fund_type: "all",
        results: [
          fund(1, "fund_atlas", "atlas-ventures", "Atlas Ventures", "vc"),
          fund(2, "fund_borealis", "borealis-capital", "Borealis Capital", "vc"),
          fund(3, "fund_cygnus", "cygnus-angels", "Cygnus Angels", "angel"),
          fund(4, "fund_draco", "draco-accelerator", "Draco Accelerator", "accelerator"),
          fund(5, "fund_eridanus", "eridanus-launchpad", "Eridanus Launchpad", "launchpad"),
        ],
      },
      meta: okMeta(1, 999),
    });
  });
  it("filters by fund_type inside the snapshot", async () => {
    expect(ids(await get("/v1/funds/rankings?fund_type=vc"))).toEqual(["1:fund_atlas", "2:fund_borealis"]);
    expect(ids(await get("/v1/funds/rankings?fund_type=cvc"))).toEqual([]);
    expect(ids(await get("/v1/funds/rankings?limit=1"))).toEqual(["1:fund_atlas"]);
  });
  it("422 for an unknown fund_type, the name `type`, and limits 0 and 31", async () => {
    expect((await get("/v1/funds/rankings?fund_type=bank")).body).toEqual(invalid([{ path: "fund_type", code: "invalid_value" }]));
    expect((await get("/v1/funds/rankings?type=vc")).body).toEqual(invalid([{ path: "type", code: "unknown_parameter" }]));
    expect((await get("/v1/funds/rankings?limit=31")).body).toEqual(invalid([{ path: "limit", code: "too_big" }]));
    expect((await get("/v1/funds/rankings?limit=0")).body).toEqual(invalid([{ path: "limit", code: "too_small" }]));
  });
  it("500 once the snapshot is older than 30 days", async () => {
    expect((await at("2026-03-12T00:00:00.000Z", "/v1/funds/rankings")).status).toBe(200);
    expect((await at("2026-03-12T00:00:00.001Z", "/v1/funds/rankings")).body.error).toEqual(staleBody.error);
  });
});

describe("list_trending_entities", () => {
  it("serves the live snapshot with each family's identity fields", async () => {
    const res = await get("/v1/discover/trending");
    expect(res.body).toEqual({
      data: {
        kind: "trending_topics", ranking_basis: "service_trending_signal", as_of: "2026-03-01T10:30:00.000Z",
        limit: 20, entity_type: null, date: null,
        results: [
          { type: "project", rank: 1, id: "proj_aurora", slug: "aurora-swap", name: "Aurora Swap" },
          { type: "token", rank: 2, id: "tok_btc", slug: "bitcoin", name: "Bitcoin" },
          { type: "person", rank: 3, id: "person_alice", slug: "alice-nakamoto", full_name: "Alice Nakamoto" },
          { type: "x_account", rank: 4, id: "xa_wqzvo7hriklvfiutr25qfkq6hf", linked_entity: { type: "project", id: "proj_aurora" } },
          { type: "token", rank: 5, id: "tok_aur", slug: "aurora", name: "Aurora Token" },
          { type: "narrative", rank: 6, id: "nar_restaking", slug: "restaking", name: "Restaking" },
        ],
      },
      meta: okMeta(1, 999),
    });
  });
  it("filters by entity_type and limit inside the fixed snapshot", async () => {
    const tokens = await get("/v1/discover/trending?entity_type=token");
    expect(tokens.body.data.entity_type).toBe("token");
    expect(ids(tokens)).toEqual(["1:tok_btc", "2:tok_aur"]);
    expect(ids(await get("/v1/discover/trending?limit=1"))).toEqual(["1:proj_aurora"]);
    expect(ids(await get("/v1/discover/trending?entity_type=token&limit=20"))).toEqual(["1:tok_btc", "2:tok_aur"]);
  });
  it("serves a dated snapshot from the previous 30 UTC days", async () => {
    const res = await get("/v1/discover/trending?date=2026-02-28");
    expect(res.body.data).toEqual({
      kind: "trending_topics", ranking_basis: "service_trending_signal", as_of: "2026-02-28T23:59:59.999Z",
      limit: 20, entity_type: null, date: "2026-02-28",
      results: [
        { type: "project", rank: 1, id: "proj_beacon", slug: "beacon-lend", name: "Beacon Lend" },
        { type: "token", rank: 2, id: "tok_eth", slug: "ethereum", name: "Ethereum" },
        { type: "project", rank: 3, id: "proj_aurora", slug: "aurora-swap", name: "Aurora Swap" },
        { type: "x_account", rank: 4, id: "xa_nhwftcegb4w5ixpknf4qigfd5r", linked_entity: { type: "person", id: "person_alice" } },
        { type: "stock", rank: 5, id: "stk_orbit", slug: "orbit-holdings", name: "Orbit Holdings" },
      ],
    });
    expect(ids(await get("/v1/discover/trending?date=2026-02-28&entity_type=stock"))).toEqual(["1:stk_orbit"]);
    expect(ids(await get("/v1/discover/trending?date=2026-01-30"))).toEqual(["1:proj_echo"]);
    expect(ids(await get("/v1/discover/trending?date=2026-02-01"))).toEqual([]);
  });
  it("422 on date outside the previous 30 days (today included) and on malformed dates", async () => {
    for (const date of ["2026-01-29", "2026-03-01", "2026-03-02"]) {
      expect((await get(`/v1/discover/trending?date=${date}`)).body).toEqual(invalid([{ path: "date", code: "outside_window" }]));
    }
    expect((await get("/v1/discover/trending?date=2026-3-1")).body).toEqual(invalid([{ path: "date", code: "invalid_format" }]));
    expect((await get("/v1/discover/trending?date=2026-02-30")).body).toEqual(invalid([{ path: "date", code: "invalid_date" }]));
  });
  it("judges the window against the current date, not the compile date", async () => {
    expect((await at("2026-03-02T06:00:00.000Z", "/v1/discover/trending?date=2026-01-30")).body.error.code).toBe("INVALID_REQUEST");
    // Inside the window but not in this snapshot: a 500 that says which day is missing, not "not fresh".
    const missing = await at("2026-03-02T06:00:00.000Z", "/v1/discover/trending?date=2026-03-01");
    expect(missing.status).toBe(500);
    expect(missing.body.error).toEqual({ code: "INTERNAL_ERROR", message: "No trending ranking was compiled for 2026-03-01." });
  });
  it("judges the window on every request, also for a request already answered (parsed requests are remembered)", async () => {
    const path = "/v1/discover/trending?date=2026-01-30";
    expect((await get(path)).status).toBe(200);
    expect((await at("2026-03-02T06:00:00.000Z", path)).body.error).toEqual(invalid([{ path: "date", code: "outside_window" }]).error);
    expect(ids(await get(path))).toEqual(["1:proj_echo"]);
  });
  it("422 for unknown entity_type and limits 0 and 21", async () => {
    expect((await get("/v1/discover/trending?entity_type=fund")).body).toEqual(invalid([{ path: "entity_type", code: "invalid_value" }]));
    expect((await get("/v1/discover/trending?limit=0")).body).toEqual(invalid([{ path: "limit", code: "too_small" }]));
    expect((await get("/v1/discover/trending?limit=21")).body).toEqual(invalid([{ path: "limit", code: "too_big" }]));
  });
  it("500 once live data is older than 2 hours; dated snapshots still answer", async () => {
    expect((await at("2026-03-01T12:30:00.000Z", "/v1/discover/trending")).status).toBe(200);
    const stale = await at("2026-03-01T12:30:00.001Z", "/v1/discover/trending");
    expect(stale.status).toBe(500);
    expect(stale.body.error).toEqual(staleBody.error);
    expect((await at("2026-03-01T12:30:00.001Z", "/v1/discover/trending?date=2026-02-28")).status).toBe(200);
  });
});
