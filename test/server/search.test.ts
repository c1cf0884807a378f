// Operation 1: POST /v1/search.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createTestService, type TestService } from "../_support/server.ts";
import { invalid, okMeta } from "./_expect.ts";

let service: TestService;
beforeAll(async () => {
  service = await createTestService();
});
afterAll(() => service.close());

const search = (body: unknown, headers?: Record<string, string>) =>
  service.call("POST", "/v1/search", { key: service.newKey().key, body, headers });
const results = async (body: unknown) => (await search(body)).body.data.results;

const auroraToken = { type: "token", id: "tok_aur", symbol: "AUR", name: "Aurora Token" };
const auroraProject = { type: "project", id: "proj_aurora", slug: "aurora-swap", name: "Aurora Swap" };
const allTypes = ["project", "fund", "person", "token", "stock", "x_account"];

describe("search_entities", () => {
  it("ranks exact before prefix, dedupes entities, and echoes types and limit", async () => {
    const res = await search({ q: "Aurora" });
    expect(res.body).toEqual({ data: { types: allTypes, limit: 10, results: [auroraToken, auroraProject] }, meta: okMeta(2, 998) });
  });
  it("honours types (echoed in canonical order) and limit", async () => {
    const res = await search({ q: "aurora", types: ["x_account", "project"], limit: 1 });
    expect(res.body.data).toEqual({ types: ["project", "x_account"], limit: 1, results: [auroraProject] });
    expect(await results({ q: "aurora", limit: 1 })).toEqual([auroraToken]);
  });
  it("finds substrings with 3+ characters, in key order", async () => {
    expect(await results({ q: "eac" })).toEqual([
      { type: "token", id: "tok_bcn", symbol: "BCN", name: "Beacon" },
      { type: "project", id: "proj_beacon", slug: "beacon-lend", name: "Beacon Lend" },
    ]);
  });
  it("does exact and prefix matching only for 2-character queries", async () => {
    expect(await results({ q: "ea" })).toEqual([]);
    expect(await results({ q: "au" })).toEqual([auroraToken, auroraProject]);
  });
  it("returns the identity shape of every family", async () => {
    expect(await results({ q: "atlas", types: ["fund"] })).toEqual([
      { type: "fund", id: "fund_atlas", slug: "atlas-ventures", name: "Atlas Ventures", fund_type: "vc" },
    ]);
    expect(await results({ q: "kumo" })).toEqual([
      { type: "stock", id: "stk_kumo", slug: "kumo-exchange", name: "Kumo Exchange", ticker: "KUMO" },
    ]);
    expect(await results({ q: "alice", types: ["person"] })).toEqual([
      { type: "person", id: "person_alice", slug: "alice-nakamoto", full_name: "Alice Nakamoto" },
    ]);
    expect(await results({ q: "BTC" })).toEqual([{ type: "token", id: "tok_btc", symbol: "BTC", name: "Bitcoin" }]);
  });
  it("finds X accounts by exact handle only, with or without @, in any case", async () => {
    const account = [{ type: "x_account", id: "xa_wqzvo7hriklvfiutr25qfkq6hf" }];
    expect(await results({ q: "@AuroraSwapHQ" })).toEqual(account);
    expect(await results({ q: "auroraswaphq", types: ["x_account"] })).toEqual(account);
    expect(await results({ q: "auroraswap", types: ["x_account"] })).toEqual([]);
    expect(await results({ q: "alice_onchain", types: ["x_account"] })).toEqual([{ type: "x_account", id: "xa_nhwftcegb4w5ixpknf4qigfd5r" }]);
    expect(await results({ q: "hidden_acct" })).toEqual([]);
  });
  it("finds tokens by the exact address of a contract: EVM addresses in any case, others byte for byte, never by part", async () => {
    const usdc = [{ type: "token", id: "tok_usdc", symbol: "USDC", name: "USD Coin" }];
    const weth = [{ type: "token", id: "tok_weth", symbol: "WETH", name: "Wrapped Ether" }];
    expect(await results({ q: "0xA0b86991c6218b36c1d19D4a2e9Eb0cE3606eB48" })).toEqual(usdc);
    expect(await results({ q: "0xa0b86991c6218b36c1d19d4a2e9eb0ce3606eb48", types: ["token"] })).toEqual(usdc);
    expect(await results({ q: " 0xa0b86991c6218b36c1d19d4a2e9eb0ce3606eb48 " })).toEqual(usdc);
    expect(await results({ q: "0XA0B86991C6218B36C1D19D4A2E9EB0CE3606EB48" })).toEqual(usdc);
    expect(await results({ q: "0xA0B86991C6218B36C1D19D4A2E9EB0CE3606EB48" })).toEqual(usdc);
    expect(await results({ q: "EPjFWdd5AufqSSqeM2qN1xzybapC8G4wEGGkZwyTDt1v" })).toEqual(usdc);
    expect(await results({ q: "epjfwdd5aufqssqem2qn1xzybapc8g4weggkzwytdt1v" })).toEqual([]);
    // One entity, though it has the address on two chains; a part of an address matches nothing.
    expect(await results({ q: "0x4200000000000000000000000000000000000006" })).toEqual(weth);
    expect(await results({ q: "0xA0b86991c6218b36c1d19D4a2e9Eb0cE3606eB4" })).toEqual([]);
    expect(await results({ q: "0xa0b86991" })).toEqual([]);
    expect(await results({ q: "0xA0b86991c6218b36c1d19D4a2e9Eb0cE3606eB48", types: ["project", "fund"] })).toEqual([]);
    // A hidden token's contracts are not written.
    expect(await results({ q: "0x000000000000000000000000000000000000dEaD" })).toEqual([]);
  });
  it("finds news stories and events only when they are named", async () => {
    const story = { type: "news", id: "story:11111111-1111-4111-8111-111111111111", title: "Aurora Swap raises a series A", published_at: "2026-02-28T15:30:00.000Z" };
    expect(await results({ q: "aurora", types: ["news"] })).toEqual([story]);
    expect(await results({ q: "raises a series", types: ["news"] })).toEqual([story]);
    const res = await search({ q: "aurora", types: ["event", "news", "project"] });
    expect(res.body.data).toEqual({ types: ["project", "news", "event"], limit: 10, results: [auroraProject, story] });
    expect(await results({ q: "summit", types: ["event"] })).toEqual([
      { type: "event", id: "evt_mile_high", slug: "mile-high-summit", name: "Mile High Summit", start_date: "2026-03-10" },
    ]);
    expect(await results({ q: "berlin-node-day", types: ["event", "news"] })).toEqual([
      { type: "event", id: "evt_berlin", slug: "berlin-node-day", name: "Berlin Node Day", start_date: "2026-03-01" },
    ]);
    // Not named, not searched: the spec's six families only.
    expect(await results({ q: "mile high summit" })).toEqual([]);
    expect(await results({ q: "bitcoin steadies" })).toEqual([]);
  });
  it("finds only the stories and events that get_news and get_event serve", async () => {
    for (const q of ["leakmarker", "uncurated", "hidden", "tbd-summit", "hidden-summit"]) {
      expect(await results({ q, types: ["news", "event"] }), q).toEqual([]);
    }
    const key = service.newKey().key;
    let served = 0;
    for (const q of ["an", "summit", "week", "bitcoin", "series"]) {
      for (const hit of await results({ q, types: ["news", "event"], limit: 20 })) {
        const path = hit.type === "news" ? `/v1/news/${hit.id}` : `/v1/events/${hit.slug}`;
        expect((await service.call("GET", path, { key })).status, path).toBe(200);
        served += 1;
      }
    }
    expect(served).toBeGreaterThan(3);
  });
  it.each(["**", "%%", ".*"])("still refuses the bulk-listing query %j for news and events", async (q) => {
    expect((await search({ q, types: ["news", "event"] })).body).toEqual(invalid([{ path: "q", code: "bulk_listing" }]));
  });
  it("excludes hidden, deleted and ineligible records", async () => {
    for (const q of ["hidden", "deleted-project", "gone-corp", "dave"]) expect(await results({ q })).toEqual([]);
  });
  it("is deterministic", async () => {
    expect(await results({ q: "an" })).toEqual(await results({ q: "an" }));
  });
});

describe("search_entities: invalid requests", () => {
  it.each(["**", "%%", "__", ".*", "..", "  ", "*.%_"])("rejects the bulk-listing query %j", async (q) => {
    expect((await search({ q })).body).toEqual(invalid([{ path: "q", code: "bulk_listing" }]));
  });
  it("q is 2-500 characters", async () => {
    expect((await search({ q: "a" })).body).toEqual(invalid([{ path: "q", code: "too_small" }]));
    expect((await search({ q: "ab" })).status).toBe(200);
    expect((await search({ q: "a".repeat(500) })).status).toBe(200);
    expect((await search({ q: "a".repeat(501) })).body).toEqual(invalid([{ path: "q", code: "too_big" }]));
    expect((await search({})).body).toEqual(invalid([{ path: "q", code: "invalid_type" }]));
  });
  it("limit is an integer 1-20", async () => {
    expect((await search({ q: "aurora", limit: 20 })).status).toBe(200);
    expect((await search({ q: "aurora", limit: 0 })).body).toEqual(invalid([{ path: "limit", code: "too_small" }]));
    expect((await search({ q: "aurora", limit: 21 })).body).toEqual(invalid([{ path: "limit", code: "too_big" }]));
    expect((await search({ q: "aurora", limit: "5" })).body.error.details[0].path).toBe("limit");
    expect((await search({ q: "aurora", limit: 1.5 })).body.error.details[0].path).toBe("limit");
  });
  it("types must be known, non-empty and without repeats, each problem naming its item", async () => {
    expect((await search({ q: "aurora", types: [] })).body).toEqual(invalid([{ path: "types", code: "too_small" }]));
    expect((await search({ q: "aurora", types: ["nft"] })).body).toEqual(invalid([{ path: "types[0]", code: "invalid_value" }]));
    expect((await search({ q: "aurora", types: ["token", "token"] })).body).toEqual(invalid([{ path: "types[1]", code: "duplicate_value" }]));
    expect((await search({ q: "aurora", types: ["nft", "token", "token", 3, "news", "news"] })).body).toEqual(invalid([
      { path: "types[0]", code: "invalid_value" },
      { path: "types[2]", code: "duplicate_value" },
      { path: "types[3]", code: "invalid_value" },
      { path: "types[5]", code: "duplicate_value" },
    ]));
    expect((await search({ q: "aurora", types: "token" })).body).toEqual(invalid([{ path: "types", code: "invalid_type" }]));
    const messages = (await search({ q: "aurora", types: ["nft", "token", "token"] })).body.error.details.map((d: { message: string }) => d.message);
    expect(messages).toEqual([expect.stringContaining("types[0]"), expect.stringContaining("types[2]")]);
  });
  it("types holds at most 6 values: a longer array is one problem, whatever its items", async () => {
    const six = ["project", "fund", "person", "token", "stock", "news"];
    expect((await search({ q: "aurora", types: six })).status).toBe(200);
    expect((await search({ q: "aurora", types: [...six, "event"] })).body).toEqual(invalid([{ path: "types", code: "too_big" }]));
    const flood = await search({ q: "ab", types: Array.from({ length: 5_000 }, () => 0) });
    expect(flood.body).toEqual(invalid([{ path: "types", code: "too_big" }]));
    expect(flood.body.error.details[0].message).toContain("types");
    expect(flood.text.length).toBeLessThan(1_000);
  });
  it("lists every problem, including unknown body fields and query parameters", async () => {
    const res = await service.call("POST", "/v1/search?debug=1", { key: service.newKey().key, body: { q: "*", limit: 0, extra: true } });
    expect(res.body).toEqual(invalid([
      { path: "debug", code: "unknown_parameter" },
      { path: "q", code: "too_small" },
      { path: "q", code: "bulk_listing" },
      { path: "limit", code: "too_small" },
      { path: "extra", code: "unknown_field" },
    ]));
  });
  it("takes application/json only, well-formed, as an object", async () => {
    expect((await search("{\"q\":", {})).body).toEqual(invalid([{ path: "body", code: "malformed_json" }]));
    expect((await search("", {})).body).toEqual(invalid([{ path: "body", code: "malformed_json" }]));
    expect((await search(JSON.stringify({ q: "aurora" }), { "content-type": "text/plain" })).body)
      .toEqual(invalid([{ path: "body", code: "unsupported_media_type" }]));
    expect((await search(JSON.stringify({ q: "aurora" }), { "content-type": "application/json; charset=utf-8" })).status).toBe(200);
    expect((await search([])).body).toEqual(invalid([{ path: "body", code: "invalid_type" }]));
  });
  it("accepts 16 KiB and rejects one byte more", async () => {
    const body = (bytes: number) => {
      const json = JSON.stringify({ q: "aurora" });
      return json.slice(0, -1) + " ".repeat(bytes - json.length) + "}";
    };
    expect(Buffer.byteLength(body(16_384))).toBe(16_384);
    expect((await search(body(16_384))).status).toBe(200);
    expect((await search(body(16_385))).body).toEqual(invalid([{ path: "body", code: "body_too_large" }]));
  });
  it("404 for GET /v1/search (method not listed)", async () => {
    const res = await service.call("GET", "/v1/search", { key: service.newKey().key });
    expect(res.status).toBe(404);
    expect(res.body.error.code).toBe("NOT_FOUND");
  });
});

describe("search_entities without the compile secret", () => {
  it("finds no X account by handle, and everything else as before", async () => {
    const blind = await createTestService({ xSecret: null });
    const wrong = await createTestService({ xSecret: "another-secret-than-the-compilers-one" });
    try {
      for (const other of [blind, wrong]) {
        const call = (body: unknown) => other.call("POST", "/v1/search", { key: other.newKey().key, body });
        expect((await call({ q: "@AuroraSwapHQ" })).body.data.results).toEqual([]);
        expect((await call({ q: "alice_onchain", types: ["x_account"] })).body.data.results).toEqual([]);
        expect((await call({ q: "Aurora" })).body.data.results).toEqual([auroraToken, auroraProject]);
      }
    } finally {
      blind.close();
      wrong.close();
    }
  });
});
