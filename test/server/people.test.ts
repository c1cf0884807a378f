// Operations 2-4: people search, person investments, person roles.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createTestService, type TestService } from "../_support/server.ts";
import { invalid, notFoundBody, okMeta } from "./_expect.ts";

let service: TestService;
beforeAll(async () => {
  service = await createTestService();
});
afterAll(() => service.close());

const get = (path: string) => service.call("GET", path, { key: service.newKey().key });
const alice = { id: "person_alice", slug: "alice-nakamoto", full_name: "Alice Nakamoto" };

describe("search_people", () => {
  it("matches case-insensitively inside the candidate set", async () => {
    const res = await get("/v1/people/search?query=ALICE");
    expect(res.body).toEqual({
      data: { kind: "people_search", query: "ALICE", limit: 10, results: [{ type: "person", ...alice }] },
      meta: okMeta(2, 998),
    });
  });
  it("matches a substring, also with non-ASCII letters", async () => {
    const res = await get("/v1/people/search?query=%C3%84ngel");
    expect(res.body.data.results).toEqual([{ type: "person", id: "person_erin", slug: "erin-angel", full_name: "Erin Ängel" }]);
  });
  it("never returns people outside the candidate set, hidden people, or other families", async () => {
    for (const query of ["dave", "carol", "aurora"]) {
      expect((await get(`/v1/people/search?query=${query}`)).body.data.results).toEqual([]);
    }
  });
  it("limit applies: 1 inside, 0 and 21 outside", async () => {
    expect((await get("/v1/people/search?query=-&limit=1")).status).toBe(422);
    const res = await get("/v1/people/search?query=in&limit=1");
    expect(res.body.data.limit).toBe(1);
    expect((await get("/v1/people/search?query=alice&limit=20")).status).toBe(200);
    expect((await get("/v1/people/search?query=alice&limit=0")).body).toEqual(invalid([{ path: "limit", code: "too_small" }]));
    expect((await get("/v1/people/search?query=alice&limit=21")).body).toEqual(invalid([{ path: "limit", code: "too_big" }]));
  });
  it("422 for a missing, too short, too long or bulk-listing query", async () => {
    expect((await get("/v1/people/search")).body).toEqual(invalid([{ path: "query", code: "invalid_type" }]));
    expect((await get("/v1/people/search?query=a")).body).toEqual(invalid([{ path: "query", code: "too_small" }]));
    expect((await get(`/v1/people/search?query=${"a".repeat(500)}`)).status).toBe(200);
    expect((await get(`/v1/people/search?query=${"a".repeat(501)}`)).body).toEqual(invalid([{ path: "query", code: "too_big" }]));
    expect((await get("/v1/people/search?query=%25%25")).body).toEqual(invalid([{ path: "query", code: "bulk_listing" }]));
  });
  it("422 for the parameter names of other operations", async () => {
    expect((await get("/v1/people/search?q=alice")).body).toEqual(
      invalid([{ path: "query", code: "invalid_type" }, { path: "q", code: "unknown_parameter" }]),
    );
  });
});

describe("get_person_investments", () => {
  it("returns verified invested projects as identities", async () => {
    const res = await get("/v1/people/alice-nakamoto/investments");
    expect(res.body).toEqual({
      data: {
        kind: "person_investments", id: "person_alice", person: alice, limit: 20, investment_count: 2,
        results: [
          { id: "proj_beacon", slug: "beacon-lend", name: "Beacon Lend" },
          { id: "proj_aurora", slug: "aurora-swap", name: "Aurora Swap" },
        ],
      },
      meta: okMeta(1, 999),
    });
  });
  it("limit applies inside the list; the count stays the total", async () => {
    const res = await get("/v1/people/alice-nakamoto/investments?limit=1");
    expect(res.body.data).toMatchObject({ limit: 1, investment_count: 2, results: [{ id: "proj_beacon" }] });
    expect((await get("/v1/people/alice-nakamoto/investments?limit=21")).status).toBe(422);
  });
  it("404 for hidden and unknown people; 422 for a 161-character slug", async () => {
    expect((await get("/v1/people/carol-hidden/investments")).body).toEqual(notFoundBody);
    expect((await get(`/v1/people/${"p".repeat(160)}/investments`)).body).toEqual(notFoundBody);
    expect((await get(`/v1/people/${"p".repeat(161)}/investments`)).body).toEqual(invalid([{ path: "slug", code: "too_big" }]));
  });
});

describe("get_person_roles", () => {
  it("returns project identities with is_current, current first", async () => {
    const res = await get("/v1/people/alice-nakamoto/roles");
    expect(res.body).toEqual({
      data: {
        kind: "person_roles", id: "person_alice", person: alice, limit: 20, role_count: 2,
        results: [
          { project: { id: "proj_aurora", slug: "aurora-swap", name: "Aurora Swap" }, is_current: true },
          { project: { id: "proj_beacon", slug: "beacon-lend", name: "Beacon Lend" }, is_current: false },
        ],
      },
      meta: okMeta(1, 999),
    });
  });
  it("limit 1 inside, 0 outside; 404 for an unknown person", async () => {
    expect((await get("/v1/people/alice-nakamoto/roles?limit=1")).body.data.results).toHaveLength(1);
    expect((await get("/v1/people/alice-nakamoto/roles?limit=0")).body).toEqual(invalid([{ path: "limit", code: "too_small" }]));
    expect((await get("/v1/people/nobody/roles")).body).toEqual(notFoundBody);
  });
});
