// The bundled sample end to end: written at a fixed as-of, compiled by the real compiler, served by
// a real HTTP server with a clock shortly after the as-of. Every operation answers 200 with data
// that parses with its strict response schema, lists are not empty, and every operation with a
// path identifier answers 404 NOT_FOUND for an identifier that is not in the snapshot.
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type Database from "better-sqlite3";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { compileSnapshot } from "../../compiler/compile.ts";
import { writeSample } from "../../data/sample.ts";
import { createApp } from "../../server/app.ts";
import type { RunningServer } from "../../server/listen.ts";
import { openMeterDatabase } from "../../server/meter/sqlite/database.ts";
import { createKey } from "../../server/meter/sqlite/keys.ts";
import { SqliteMeter } from "../../server/meter/sqlite/meter.ts";
import { operationPolicy, type OperationId } from "../../server/policy.ts";
import { routes } from "../../server/routes.ts";
import { Serving } from "../../server/serving.ts";
import { openSnapshot } from "../../snapshot/open.ts";
import { REQUEST_ID, startTestServer } from "../_support/server.ts";

const AS_OF = new Date("2026-11-21T12:00:00.000Z");
/** The injected clock: ten minutes after the as-of, well inside every freshness bound. */
const NOW = AS_OF.getTime() + 10 * 60_000;

let work: string;
let snapshot: Database.Database;
let meter: SqliteMeter;
let serving: Serving;
let admin: Database.Database;
let server: RunningServer;
let key: string;
let ids: Record<
  "project" | "person" | "token" | "news" | "xAccount" | "event" | "query" | "personQuery" | "marketToken" | "unlockToken" | "narrative" | "fund" | "stock",
  string
>;

beforeAll(async () => {
  work = mkdtempSync(join(tmpdir(), "cei-sample-serve-"));
  await writeSample({ outDir: join(work, "sample"), asOf: AS_OF, scale: 1 });
  const outFile = join(work, "snapshot.db");
  const compiled = await compileSnapshot({ sourceDir: join(work, "sample"), outFile, compiledAt: AS_OF, xSecret: "sample-test-secret" });
  if (!compiled.ok) throw new Error(`the sample did not compile:\n${compiled.problems.join("\n")}`);

  const meterFile = join(work, "meter.db");
  const now = () => NOW;
  admin = openMeterDatabase(meterFile, { now });
  meter = SqliteMeter.open(meterFile, { now, synchronous: "NORMAL" });
  snapshot = openSnapshot(outFile);
  key = createKey(admin, { tier: "pro", credits: 10_000 }, NOW).key;
  serving = await Serving.open(outFile, { now, log: () => undefined });
  server = await startTestServer(createApp({ serving, meter, now, releaseTrendingProjects: true, checkResponses: true }));

  // Ids taken from the compiled snapshot, each chosen so that its lists are not empty.
  const one = (sql: string): string => {
    const value = snapshot.prepare(sql).pluck().get() as string | undefined;
    if (value === undefined) throw new Error(`the compiled sample has no row for: ${sql}`);
    return value;
  };
  const project = one(`SELECT p.slug FROM projects p JOIN project_tvl t ON t.project_id = p.id
    WHERE p.feature_count > 0 AND p.event_count > 0 AND p.round_count > 0 ORDER BY p.id LIMIT 1`);
  const person = one("SELECT slug FROM people WHERE investment_count > 0 AND role_count > 0 AND is_search_candidate = 1 ORDER BY id LIMIT 1");
  ids = {
    project,
    person,
    query: one(`SELECT name FROM projects WHERE slug = '${project}'`),
    personQuery: one(`SELECT full_name FROM people WHERE slug = '${person}'`),
    token: one(`SELECT token_id FROM tokenomics t WHERE EXISTS (SELECT 1 FROM tokenomics_allocations a WHERE a.token_id = t.token_id)
      ORDER BY token_id LIMIT 1`),
    news: one("SELECT news_id FROM news_entities ORDER BY news_id LIMIT 1"),
    xAccount: one("SELECT id FROM x_accounts ORDER BY id LIMIT 1"),
    event: one("SELECT slug FROM events ORDER BY id LIMIT 1"),
    marketToken: one("SELECT t.id FROM tokens t JOIN market_assets m ON m.token_id = t.id WHERE t.project_id IS NOT NULL ORDER BY t.id LIMIT 1"),
    unlockToken: one(`SELECT token_id FROM token_unlock_plans
      WHERE (step_amount > 0 AND end_ms > ${NOW} + 30 * 86400000) ORDER BY token_id LIMIT 1`),
    narrative: one("SELECT n.slug FROM narratives n JOIN narrative_timeline t ON t.narrative_id = n.id WHERE n.project_count > 0 ORDER BY n.id LIMIT 1"),
    fund: one("SELECT slug FROM funds WHERE portfolio_count > 0 AND partner_count > 0 ORDER BY id LIMIT 1"),
    stock: one("SELECT slug FROM stocks WHERE story_count > 0 ORDER BY id LIMIT 1"),
  };
}, 120_000);

afterAll(async () => {
  await server?.close();
  meter?.close();
  admin?.close();
  snapshot?.close();
  serving?.close();
  if (work !== undefined) rmSync(work, { recursive: true, force: true });
});

interface Answer { status: number; headers: Headers; body: { data?: Record<string, unknown>; error?: { code: string }; meta: Record<string, unknown> } }

async function call(method: "GET" | "POST", path: string, body?: unknown): Promise<Answer> {
  const headers: Record<string, string> = { authorization: `Bearer ${key}` };
  if (body !== undefined) headers["content-type"] = "application/json";
  const response = await fetch(server.url + path, { method, headers, body: body === undefined ? undefined : JSON.stringify(body) });
  return { status: response.status, headers: response.headers, body: (await response.json()) as Answer["body"] };
}

/** One representative request per operation, and the lists its data must not leave empty. */
function requests(): Record<OperationId, { path: string; body?: unknown; lists: string[] }> {
  return {
    search_entities: { path: "/v1/search", body: { q: ids.query, limit: 5 }, lists: ["results"] },
    search_people: { path: `/v1/people/search?query=${encodeURIComponent(ids.personQuery)}`, lists: ["results"] },
    get_person_investments: { path: `/v1/people/${ids.person}/investments`, lists: ["results"] },
    get_person_roles: { path: `/v1/people/${ids.person}/roles`, lists: ["results"] },
    get_project: { path: `/v1/projects/${ids.project}`, lists: [] },
    get_project_features: { path: `/v1/projects/${ids.project}/features`, lists: ["features"] },
    get_project_events: { path: `/v1/projects/${ids.project}/events`, lists: ["events"] },
    get_project_funding: { path: `/v1/projects/${ids.project}/funding`, lists: ["rounds"] },
    get_project_market: { path: `/v1/projects/${ids.project}/market`, lists: [] },
    list_trending_projects: { path: "/v1/projects/trending", lists: ["results"] },
    get_tokenomics: { path: `/v1/tokenomics/${encodeURIComponent(ids.token)}`, lists: ["allocations"] },
    list_market_top_movers: { path: "/v1/markets/top-movers?period=7d", lists: ["gainers", "losers"] },
    get_market_snapshot: { path: "/v1/markets/snapshot", lists: [] },
    list_stock_rankings: { path: "/v1/stocks/rankings", lists: ["results"] },
    list_fund_rankings: { path: "/v1/funds/rankings", lists: ["results"] },
    list_trending_entities: { path: "/v1/discover/trending", lists: ["results"] },
    get_news: { path: `/v1/news/${ids.news}`, lists: ["entities"] },
    get_x_account: { path: `/v1/x-accounts/${encodeURIComponent(ids.xAccount)}`, lists: [] },
    get_event: { path: `/v1/events/${ids.event}`, lists: [] },
    get_token: { path: `/v1/tokens/${encodeURIComponent(ids.marketToken)}`, lists: [] },
    get_token_unlocks: { path: `/v1/tokens/${encodeURIComponent(ids.unlockToken)}/unlocks?days=365`, lists: ["unlocks"] },
    list_narratives: { path: "/v1/narratives", lists: ["results"] },
    get_narrative: { path: `/v1/narratives/${ids.narrative}`, lists: ["projects", "timeline"] },
    get_fund: { path: `/v1/funds/${ids.fund}`, lists: ["portfolio", "partners"] },
    get_stock_news: { path: `/v1/stocks/${ids.stock}/news`, lists: ["stories"] },
    get_key: { path: "/v1/key", lists: ["scopes"] },
  };
}

/** Operations with a path identifier (3-9, 11, 17-21, 23-25), each with an identifier that is valid but absent. */
const notFoundPaths: Partial<Record<OperationId, string>> = {
  get_person_investments: "/v1/people/no-such-person/investments",
  get_person_roles: "/v1/people/no-such-person/roles",
  get_project: "/v1/projects/no-such-project",
  get_project_features: "/v1/projects/no-such-project/features",
  get_project_events: "/v1/projects/no-such-project/events",
  get_project_funding: "/v1/projects/no-such-project/funding",
  get_project_market: "/v1/projects/no-such-project/market",
  get_tokenomics: "/v1/tokenomics/tok_no_such_token",
  get_news: "/v1/news/story:00000000-0000-4000-8000-000000000000",
  get_x_account: "/v1/x-accounts/xa_no_such_account",
  get_event: "/v1/events/no-such-event",
  get_token: "/v1/tokens/tok_no_such_token",
  get_token_unlocks: "/v1/tokens/tok_no_such_token/unlocks",
  get_narrative: "/v1/narratives/no-such-narrative",
  get_fund: "/v1/funds/no-such-fund",
  get_stock_news: "/v1/stocks/no-such-stock/news",
};

describe("the bundled sample, served over HTTP", () => {
  it("every operation answers as specified on a freshly generated sample", async () => {
    const all = requests();
    for (const route of routes) {
      const { path, body, lists } = all[route.operation];
      const answer = await call(route.method, path, body);
      expect(answer.status, `${route.operation} ${path}: ${JSON.stringify(answer.body)}`).toBe(200);
      const parsed = route.handler.response.safeParse(answer.body.data);
      expect(parsed.success, `${route.operation}: ${parsed.success ? "" : JSON.stringify(parsed.error.issues)}`).toBe(true);
      for (const list of lists) {
        expect((answer.body.data![list] as unknown[]).length, `${route.operation}.${list}`).toBeGreaterThan(0);
      }
      expect(answer.body.meta.request_id).toMatch(REQUEST_ID);
      expect(answer.body.meta.credits_used).toBe(operationPolicy[route.operation].cost);
      expect(answer.headers.get("cache-control")).toBe("no-store");
    }
  });

  it("the path-identifier operations (3-9, 11, 17-21, 23-25) answer 404 NOT_FOUND, uncharged, for an absent identifier", async () => {
    const withIdentifier = routes.filter((route) => route.path.includes("/:")).map((route) => route.operation);
    expect(Object.keys(notFoundPaths).sort()).toEqual([...withIdentifier].sort());
    for (const [operation, path] of Object.entries(notFoundPaths)) {
      const answer = await call("GET", path!);
      expect(answer.status, `${operation} ${path}`).toBe(404);
      expect(answer.body.error?.code, operation).toBe("NOT_FOUND");
      expect(answer.body.meta.credits_used, operation).toBe(0);
    }
  });
});
