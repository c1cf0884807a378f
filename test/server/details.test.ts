// Operations 17-19: news detail, X account detail, event.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createTestService, FIXTURE_NOW, type TestService } from "../_support/server.ts";
import { invalid, notFoundBody, okMeta } from "./_expect.ts";

let service: TestService;
beforeAll(async () => {
  service = await createTestService();
});
afterAll(() => service.close());

const get = (path: string) => service.call("GET", path, { key: service.newKey().key });
const STORY = "story:11111111-1111-4111-8111-111111111111";

describe("get_news", () => {
  it("returns the curated story with its entities", async () => {
    const res = await get(`/v1/news/${STORY}`);
    expect(res.body).toEqual({
      data: {
        type: "news", kind: "news_detail", id: STORY, title: "Aurora Swap raises a series A",
        summary: "Aurora Swap closed a round led by Atlas Ventures.", published_at: "2026-02-28T15:30:00.000Z",
        sentiment: "positive", language: "en",
        entities: [
          { type: "project", id: "proj_aurora", slug: "aurora-swap", name: "Aurora Swap" },
          { type: "token", id: "tok_aur", slug: "aurora", name: "Aurora Token" },
          { type: "person", id: "person_alice", slug: "alice-nakamoto", name: "Alice Nakamoto" },
          { type: "fund", id: "fund_atlas", slug: "atlas-ventures", name: "Atlas Ventures" },
          { type: "stock", id: "stk_orbit", slug: "orbit-holdings", name: "Orbit Holdings" },
          { type: "narrative", id: "nar_defi", slug: "defi-lending", name: "DeFi Lending" },
        ],
      },
      meta: okMeta(1, 999),
    });
  });
  it("404 for uncurated, hidden and unknown stories", async () => {
    for (const id of ["story:33333333-3333-4333-9333-333333333333", "story:44444444-4444-4444-b444-444444444444", "story:00000000-0000-4000-8000-000000000000"]) {
      expect((await get(`/v1/news/${id}`)).body).toEqual(notFoundBody);
    }
  });
  it("422 naming id for 41 or 43 characters or a wrong pattern, before any lookup", async () => {
    expect((await get(`/v1/news/${STORY.slice(0, -1)}`)).body).toEqual(invalid([{ path: "id", code: "too_small" }, { path: "id", code: "invalid_format" }]));
    expect((await get(`/v1/news/${STORY}0`)).body).toEqual(invalid([{ path: "id", code: "too_big" }, { path: "id", code: "invalid_format" }]));
    expect((await get("/v1/news/story:AAAAAAAA-1111-4111-8111-111111111111")).body).toEqual(invalid([{ path: "id", code: "invalid_format" }]));
    expect((await get("/v1/news/story:11111111-1111-6111-8111-111111111111")).body).toEqual(invalid([{ path: "id", code: "invalid_format" }]));
  });
});

describe("get_x_account", () => {
  it("returns the reference with its linked entity", async () => {
    const res = await get("/v1/x-accounts/xa_wqzvo7hriklvfiutr25qfkq6hf");
    expect(res.body).toEqual({
      data: { type: "x_account", id: "xa_wqzvo7hriklvfiutr25qfkq6hf", linked_entity: { type: "project", id: "proj_aurora" } },
      meta: okMeta(1, 999),
    });
  });
  it("omits linked_entity when there is none", async () => {
    expect((await get("/v1/x-accounts/xa_cbp7km7gacidmzjwjkcmn5afve")).body.data).toEqual({ type: "x_account", id: "xa_cbp7km7gacidmzjwjkcmn5afve" });
  });
  it("404 for unknown ids and handles; 422 above 160 characters", async () => {
    for (const id of ["xa_aaaaaaaaaaaaaaaaaaaaaaaaaa", "AuroraSwapHQ", "x".repeat(160)]) expect((await get(`/v1/x-accounts/${id}`)).body).toEqual(notFoundBody);
    expect((await get(`/v1/x-accounts/${"x".repeat(161)}`)).body).toEqual(invalid([{ path: "id", code: "too_big" }]));
  });
});

describe("get_event", () => {
  it("returns the event with a computed status", async () => {
    const res = await get("/v1/events/berlin-node-day");
    expect(res.body).toEqual({
      data: {
        type: "event", id: "evt_berlin", slug: "berlin-node-day", name: "Berlin Node Day", event_type: "meetup",
        status: "ongoing", start_date: "2026-03-01", end_date: "2026-03-01", city: "Berlin", country: "Germany",
        website_url: "https://berlin.example.com",
      },
      meta: okMeta(1, 999),
    });
    expect((await get("/v1/events/lisbon-builders-week")).body.data).toMatchObject({ status: "ongoing", website_url: null });
    expect((await get("/v1/events/seoul-chain-forum")).body.data.status).toBe("ended");
  });
  it.each([
    ["2026-03-09T23:59:59.999Z", "upcoming"],
    ["2026-03-10T00:00:00.000Z", "ongoing"],
    ["2026-03-12T23:59:59.999Z", "ongoing"],
    ["2026-03-13T00:00:00.000Z", "ended"],
  ])("status at %s is %s (by the current UTC date)", async (iso, status) => {
    service.clock.now = Date.parse(iso);
    try {
      expect((await get("/v1/events/mile-high-summit")).body.data.status).toBe(status);
    } finally {
      service.clock.now = FIXTURE_NOW;
    }
  });
  it("404 for unvalidated, hidden and unknown events; 422 for 161 characters", async () => {
    for (const slug of ["tbd-summit", "hidden-summit", "nope"]) expect((await get(`/v1/events/${slug}`)).body).toEqual(notFoundBody);
    expect((await get(`/v1/events/${"e".repeat(161)}`)).body).toEqual(invalid([{ path: "slug", code: "too_big" }]));
  });
});
