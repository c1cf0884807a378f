// The search relevance suite (decision 29): fixtures/real-search, real public coin names, symbols
// and X handles (its README gives their origin), compiled once by the real compiler and searched
// through the whole operation as a consumer would. Every query must find the entity it means within
// its stated rank; a typo the search does not support must not find it (docs/api.md says which).
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { FIXTURE_X_SECRET } from "../_support/fixtures.ts";
import { RELEVANCE_QUERIES, rankOf } from "../_support/relevance.ts";
import { createTestService, type TestService } from "../_support/server.ts";

let service: TestService;
let key: string;
beforeAll(async () => {
  service = await createTestService({ fixture: "real-search" });
  key = service.newKey({ credits: 100_000 }).key;
}, 60_000);
afterAll(() => service.close());

const search = async (q: string, types?: string[]) => {
  const res = await service.call("POST", "/v1/search", { key, body: { q, limit: 10, ...(types === undefined ? {} : { types }) } });
  expect(res.status).toBe(200);
  return res.body.data.results as Array<{ type: string; id: string }>;
};

describe("search relevance on real names", () => {
  it("holds at least 100 queries of every kind the issue names", () => {
    expect(RELEVANCE_QUERIES.length).toBeGreaterThanOrEqual(100);
    const kinds = new Set(RELEVANCE_QUERIES.map((query) => query.kind));
    for (const kind of ["exact name", "prefix", "ticker", "accents", "apostrophes", "multi-word", "handle with @", "handle without @", "id", "typo (not supported)"]) {
      expect(kinds, kind).toContain(kind);
    }
  });

  it.each(RELEVANCE_QUERIES.map((query) => [`${query.kind}: ${JSON.stringify(query.q)}${query.types ? ` in ${query.types.join(",")}` : ""}`, query] as const))(
    "%s", async (_, query) => {
      const rank = rankOf(query, await search(query.q, query.types), FIXTURE_X_SECRET);
      if (query.within === null) expect(rank, "a typo the search does not support").toBe(0);
      else {
        expect(rank, "not found").toBeGreaterThan(0);
        expect(rank).toBeLessThanOrEqual(query.within);
      }
    },
  );

  it("finds an X account by its exact id, as a linked entity's id is opened", async () => {
    const [account] = await search("@shibtoken");
    expect(account?.type).toBe("x_account");
    expect(await search(account!.id)).toEqual([account]);
    expect(await search(account!.id.toUpperCase())).toEqual([account]);
  });
});
