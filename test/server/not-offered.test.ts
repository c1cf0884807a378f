// Decision 28: an operation that no curated record feeds is not offered. A snapshot compiled by
// the real compiler from sources with projects and tokens only (no market observation, no
// tokenomics, no TVL, no fund, stock, trending signal, news, event, person or X account): each
// such operation answers exactly as an unknown route does, in every key state the route check
// precedes (no 403 for scope, no 422, no 402), counted in the window and never charged; /readyz and
// `cei inspect` say what the file holds and what it does not offer. Data that was curated and
// has gone stale keeps its 500 (markets.test.ts, rankings.test.ts).
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { inspectSnapshot } from "../../cli/inspect.ts";
import { compileSnapshot } from "../../compiler/compile.ts";
import { FIXTURE_COMPILED_AT } from "../_support/fixtures.ts";
import { createTestService, type TestService } from "../_support/server.ts";
import { writeSources } from "../_support/sources.ts";
import { testTempDir } from "../_support/temp.ts";
import { errorMeta, notFoundBody, okMeta } from "./_expect.ts";

let service: TestService;
let snapshotFile: string;

beforeAll(async () => {
  const dir = testTempDir("cei-not-offered-");
  writeSources(dir, {
    "projects.jsonl": JSON.stringify({ id: "p1", slug: "aurora", name: "Aurora", description: "An exchange", chains: ["solana"] }) + "\n",
    "tokens.jsonl": JSON.stringify({ id: "t1", slug: "aurora-token", symbol: "AUR", name: "Aurora Token", project_id: "p1" }) + "\n",
  });
  snapshotFile = join(dir, "snapshot.db");
  const result = await compileSnapshot({ sourceDir: dir, outFile: snapshotFile, compiledAt: FIXTURE_COMPILED_AT });
  if (!result.ok) throw new Error(result.problems.join("\n"));
  service = await createTestService({ snapshotFile });
});
afterAll(() => service.close());

const notOffered = [
  ["get_market_snapshot", "GET", "/v1/markets/snapshot"],
  ["list_market_top_movers", "GET", "/v1/markets/top-movers"],
  ["list_trending_entities", "GET", "/v1/discover/trending"],
  ["list_fund_rankings", "GET", "/v1/funds/rankings"],
  ["list_stock_rankings", "GET", "/v1/stocks/rankings"],
  ["get_tokenomics", "GET", "/v1/tokenomics/t1"],
  ["get_project_market", "GET", "/v1/projects/aurora/market"],
  ["search_people", "GET", "/v1/people/search?q=alice"],
  ["get_event", "GET", "/v1/events/summit"],
  ["get_news", "GET", "/v1/news/story:11111111-1111-4111-8111-111111111111"],
  ["get_x_account", "GET", "/v1/x-accounts/xa_aaaaaaaaaaaaaaaaaaaaaaaaaa"],
  ["get_token_unlocks", "GET", "/v1/tokens/t1/unlocks"],
  ["list_narratives", "GET", "/v1/narratives"],
  ["get_narrative", "GET", "/v1/narratives/restaking"],
  ["get_fund", "GET", "/v1/funds/atlas"],
  ["get_stock_news", "GET", "/v1/stocks/kumo/news"],
] as const;

/** The answer without what differs between two requests: its id. */
const comparable = (res: { status: number; body: { meta: { request_id: string } }; headers: Headers }) => ({
  status: res.status,
  body: { ...res.body, meta: { ...res.body.meta, request_id: "…" } },
  headers: [...res.headers.keys()].filter((name) => name !== "x-service-request-id").sort(),
});

describe("operations no curated record feeds", () => {
  it.each(notOffered)("%s answers exactly as an unknown route", async (_operation, method, path) => {
    const offered = await service.call(method, path, { key: service.newKey().key });
    const unknown = await service.call(method, "/v1/no-such-operation", { key: service.newKey().key });
    expect(offered.body).toEqual(notFoundBody);
    expect(comparable(offered)).toEqual(comparable(unknown));
  });

  it("answer 404 before the scope, the request and the balance are judged, counted in the window, never charged", async () => {
    const outOfScope = service.newKey({ scopes: ["projects"] }).key;
    expect((await service.call("GET", "/v1/funds/rankings", { key: outOfScope })).body).toEqual(notFoundBody);
    const key = service.newKey({ credits: 0 }).key;
    const calls = [
      service.call("GET", "/v1/markets/top-movers?period=1y&limit=999", { key }),
      service.call("GET", "/v1/discover/trending?bogus=1", { key }),
      service.call("GET", "/v1/stocks/rankings", { key }),
    ];
    const answers = await Promise.all(calls);
    answers.forEach((res, i) => {
      expect(res.status).toBe(404);
      expect(res.body.meta).toEqual(errorMeta(0, i + 1));
    });
  });

  it("leave the operations the sources feed as they were", async () => {
    const key = service.newKey().key;
    expect((await service.call("GET", "/v1/projects/aurora", { key })).body.data).toMatchObject({ type: "project", slug: "aurora" });
    const search = await service.call("POST", "/v1/search", { key, body: { q: "aurora" } });
    expect(search.body).toEqual({
      data: {
        types: ["project", "fund", "person", "token", "stock", "x_account"], limit: 10,
        results: [{ type: "project", id: "p1", slug: "aurora", name: "Aurora" }, { type: "token", id: "t1", symbol: "AUR", name: "Aurora Token" }],
      },
      meta: okMeta(2, 997, 2),
    });
    expect((await service.call("GET", "/v1/tokens/t1", { key })).body.data).toMatchObject({ id: "t1", project: { id: "p1" } });
    expect((await service.call("GET", "/v1/key", { key })).status).toBe(200);
  });

  it("are listed by /readyz, with what the snapshot holds", async () => {
    const res = await service.call("GET", "/readyz", { key: null });
    expect(res.status).toBe(200);
    expect(res.body.holds).toEqual({ families: ["projects", "tokens"], precomputed: [] });
    expect(res.body.not_offered).toEqual([
      { operation: "search_people", method: "GET", path: "/v1/people/search" },
      { operation: "get_person_investments", method: "GET", path: "/v1/people/{slug}/investments" },
      { operation: "get_person_roles", method: "GET", path: "/v1/people/{slug}/roles" },
      { operation: "get_project_market", method: "GET", path: "/v1/projects/{slug}/market" },
      { operation: "get_tokenomics", method: "GET", path: "/v1/tokenomics/{id}" },
      { operation: "list_market_top_movers", method: "GET", path: "/v1/markets/top-movers" },
      { operation: "get_market_snapshot", method: "GET", path: "/v1/markets/snapshot" },
      { operation: "list_stock_rankings", method: "GET", path: "/v1/stocks/rankings" },
      { operation: "list_fund_rankings", method: "GET", path: "/v1/funds/rankings" },
      { operation: "list_trending_entities", method: "GET", path: "/v1/discover/trending" },
      { operation: "get_news", method: "GET", path: "/v1/news/{id}" },
      { operation: "get_x_account", method: "GET", path: "/v1/x-accounts/{id}" },
      { operation: "get_event", method: "GET", path: "/v1/events/{slug}" },
      { operation: "get_token_unlocks", method: "GET", path: "/v1/tokens/{id}/unlocks" },
      { operation: "list_narratives", method: "GET", path: "/v1/narratives" },
      { operation: "get_narrative", method: "GET", path: "/v1/narratives/{slug}" },
      { operation: "get_fund", method: "GET", path: "/v1/funds/{slug}" },
      { operation: "get_stock_news", method: "GET", path: "/v1/stocks/{slug}/news" },
    ]);
    // The unreleased operation is never named, offered or not.
    expect(JSON.stringify(res.body)).not.toContain("trending_projects\",\"method");
  });

  it("trending entities with dated signals only: offered, and without a date a 404 that says so", async () => {
    const dir = testTempDir("cei-dated-only-");
    writeSources(dir, {
      "projects.jsonl": JSON.stringify({ id: "p1", slug: "aurora", name: "Aurora" }) + "\n",
      "trending.jsonl": JSON.stringify({ entity: { type: "project", id: "p1" }, day: "2026-02-28", observed_at: "2026-02-28T20:00:00Z", score: 5 }) + "\n",
    });
    const file = join(dir, "snapshot.db");
    const result = await compileSnapshot({ sourceDir: dir, outFile: file, compiledAt: FIXTURE_COMPILED_AT });
    expect(result.ok).toBe(true);
    const dated = await createTestService({ snapshotFile: file });
    try {
      const live = await dated.call("GET", "/v1/discover/trending");
      expect(live.status).toBe(404);
      expect(live.body.error).toEqual({
        code: "NOT_FOUND", message: "No live trending ranking is curated: ask for one of the previous 30 UTC days with the date parameter.",
      });
      const day = await dated.call("GET", "/v1/discover/trending?date=2026-02-28");
      expect(day.body.data.results).toEqual([{ type: "project", rank: 1, id: "p1", slug: "aurora", name: "Aurora" }]);
    } finally {
      dated.close();
    }
  });

  it("are listed by cei inspect, with what the snapshot holds and what it publishes", () => {
    const inspected = inspectSnapshot(snapshotFile) as Record<string, unknown>;
    expect(inspected.holds).toEqual({ families: ["projects", "tokens"], precomputed: [] });
    expect((inspected.not_offered as Array<{ operation: string }>).map((o) => o.operation)).toEqual([
      "search_people", "get_person_investments", "get_person_roles", "get_project_market", "list_trending_projects", "get_tokenomics",
      "list_market_top_movers", "get_market_snapshot", "list_stock_rankings", "list_fund_rankings", "list_trending_entities",
      "get_news", "get_x_account", "get_event", "get_token_unlocks", "list_narratives", "get_narrative", "get_fund", "get_stock_news",
    ]);
    expect((inspected.published as Record<string, unknown>).projects).toEqual({ curated: 1, written: 1, not_published: { description: 1, chains: 1 } });
  });
});
