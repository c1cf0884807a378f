// Decision 18's first command, `npm start` (cli/start.ts), on a fresh CEI_HOME: it generates the
// sample for this moment, compiles it, prints a working key and curl lines, and serves. The
// printed curl lines are run as written, then every released operation is called with the printed
// key, using ids read from the snapshot that the run compiled: each answers 200 with data, and
// the unreleased trending projects answers 404. The sample is fresh on any date, so nothing here
// depends on the day the test runs.
import Database from "better-sqlite3";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, expect, it } from "vitest";
import { request, type HttpResult } from "./_http.ts";
import { startChildServer, type ChildServer } from "../_support/processes.ts";

const START = fileURLToPath(new URL("../../cli/start.ts", import.meta.url));

let home: string;
let server: ChildServer & { lines: string[] };
beforeAll(async () => {
  home = mkdtempSync(join(tmpdir(), "cei-start-"));
  const env: NodeJS.ProcessEnv = { ...process.env, CEI_HOME: home, PORT: "0", HOST: "127.0.0.1" };
  delete env.CEI_RELEASE_TRENDING_PROJECTS;
  server = await startChildServer(
    ["--import", "tsx", START],
    (lines) => (lines.at(-1)?.includes("Ctrl-C stops the server") ? /cei is serving on (\S+)/.exec(lines.join("\n"))?.[1] : undefined),
    env,
    60_000,
  );
}, 90_000);
afterAll(async () => {
  await server?.stop("SIGTERM");
  rmSync(home, { recursive: true, force: true });
});

/** A curl line as start.ts prints it: `curl -s -H "..." [-H "..."] [-d '...'] <url>`. */
function parseCurl(line: string): { url: string; headers: Record<string, string>; body?: string } {
  const words = [...line.trim().matchAll(/"([^"]*)"|'([^']*)'|(\S+)/g)].map((m) => m[1] ?? m[2] ?? m[3]!);
  expect(words.slice(0, 2)).toEqual(["curl", "-s"]);
  const headers: Record<string, string> = {};
  let body: string | undefined;
  for (let i = 2; i < words.length - 1; i += 2) {
    if (words[i] === "-H") {
      const [name, ...value] = words[i + 1]!.split(":");
      headers[name!.trim().toLowerCase()] = value.join(":").trim();
    } else if (words[i] === "-d") {
      body = words[i + 1];
    } else {
      throw new Error(`unexpected curl option ${words[i]} in ${line}`);
    }
  }
  return { url: words.at(-1)!, headers, body };
}

it("prints the URL it serves on, a demo key and curl lines that work as printed", async () => {
  expect(server.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
  expect(server.url).not.toMatch(/:0$/);
  const key = /^Demo key \(tier pro, 100000 credits\): (cei_[A-Za-z0-9]{40})$/.exec(server.lines.find((line) => line.startsWith("Demo key")) ?? "")?.[1];
  expect(key).toBeDefined();
  const curls = server.lines.filter((line) => line.trim().startsWith("curl "));
  expect(curls.length).toBeGreaterThanOrEqual(1);

  const first = parseCurl(curls[0]!);
  expect(first.headers.authorization).toBe(`Bearer ${key}`);
  expect(first.url.startsWith(`${server.url}/v1/`)).toBe(true);
  const snapshot = await fetch(first.url, { headers: first.headers });
  const body = (await snapshot.json()) as { data: Record<string, unknown> & { represented_asset_count: number; btc_price_usd: number } };
  expect(snapshot.status).toBe(200);
  expect(body.data).toMatchObject({ kind: "market_snapshot", universe: "top_200_market_assets" });
  expect(body.data.represented_asset_count).toBeGreaterThan(0);
  expect(body.data.btc_price_usd).toBeGreaterThan(0);

  for (const line of curls.slice(1)) {
    const curl = parseCurl(line);
    const res = await fetch(curl.url, { method: curl.body === undefined ? "GET" : "POST", headers: curl.headers, body: curl.body });
    expect([line, res.status]).toEqual([line, 200]);
    expect(((await res.json()) as { data: unknown }).data).toEqual(expect.any(Object));
  }
});

it("every released operation answers 200 with real data for the printed key; trending projects is 404", async () => {
  const key = /: (cei_[A-Za-z0-9]{40})$/.exec(server.lines.find((line) => line.startsWith("Demo key"))!)![1]!;
  const db = new Database(join(home, "snapshot.db"), { readonly: true, fileMustExist: true });
  const one = (sql: string) => {
    const value = db.prepare(sql).pluck().get() as string | undefined;
    if (value === undefined) throw new Error(`the sample has no row for: ${sql}`);
    return value;
  };
  const ids = {
    searchTerm: one("SELECT name FROM projects ORDER BY id LIMIT 1"),
    candidate: one("SELECT full_name FROM people WHERE is_search_candidate = 1 ORDER BY id LIMIT 1"),
    investor: one("SELECT slug FROM people WHERE investment_count > 0 ORDER BY id LIMIT 1"),
    roleHolder: one("SELECT slug FROM people WHERE role_count > 0 ORDER BY id LIMIT 1"),
    project: one("SELECT slug FROM projects ORDER BY id LIMIT 1"),
    withFeatures: one("SELECT slug FROM projects WHERE feature_count > 0 ORDER BY id LIMIT 1"),
    withEvents: one("SELECT slug FROM projects WHERE event_count > 0 ORDER BY id LIMIT 1"),
    withRounds: one("SELECT slug FROM projects WHERE round_count > 0 ORDER BY id LIMIT 1"),
    withTvl: one("SELECT p.slug FROM projects p JOIN project_tvl t ON t.project_id = p.id ORDER BY p.id LIMIT 1"),
    token: one("SELECT token_id FROM tokenomics ORDER BY token_id LIMIT 1"),
    news: one("SELECT id FROM news ORDER BY id LIMIT 1"),
    xAccount: one("SELECT id FROM x_accounts ORDER BY id LIMIT 1"),
    event: one("SELECT slug FROM events ORDER BY id LIMIT 1"),
    marketToken: one("SELECT token_id FROM market_assets ORDER BY position LIMIT 1"),
    narrative: one("SELECT slug FROM narratives WHERE project_count > 0 ORDER BY id LIMIT 1"),
    fund: one("SELECT slug FROM funds WHERE portfolio_count > 0 ORDER BY id LIMIT 1"),
    stock: one("SELECT slug FROM stocks WHERE story_count > 0 ORDER BY id LIMIT 1"),
  };
  const xAccountIds = new Set(db.prepare("SELECT id FROM x_accounts").pluck().all());
  db.close();
  // The server holds the compile secret: exact handles of the sample find their accounts.
  const handles = readFileSync(join(home, "sample", "x_accounts.jsonl"), "utf8").split("\n").filter((line) => line !== "")
    .slice(0, 10).map((line) => (JSON.parse(line) as { handle: string }).handle);
  const found: unknown[] = [];
  for (const handle of handles) {
    const res = await request(server.url, "POST", "/v1/search", { key, body: { q: handle, types: ["x_account"] } });
    found.push(...res.body.data.results.map((r: { id: string }) => r.id));
  }
  expect(found.length).toBeGreaterThan(0);
  for (const id of found) expect(xAccountIds.has(id)).toBe(true);

  const get = (path: string) => () => request(server.url, "GET", path, { key });
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  const calls: Array<[string, () => Promise<HttpResult>, (data: any) => unknown]> = [
    ["search_entities", () => request(server.url, "POST", "/v1/search", { key, body: { q: ids.searchTerm, limit: 5 } }), (d) => d.results.length],
    ["search_people", get(`/v1/people/search?query=${encodeURIComponent(ids.candidate)}`), (d) => d.results.length],
    ["get_person_investments", get(`/v1/people/${ids.investor}/investments`), (d) => d.results.length],
    ["get_person_roles", get(`/v1/people/${ids.roleHolder}/roles`), (d) => d.results.length],
    ["get_project", get(`/v1/projects/${ids.project}`), (d) => d.slug === ids.project],
    ["get_project_features", get(`/v1/projects/${ids.withFeatures}/features`), (d) => d.features.length],
    ["get_project_events", get(`/v1/projects/${ids.withEvents}/events`), (d) => d.events.length],
    ["get_project_funding", get(`/v1/projects/${ids.withRounds}/funding`), (d) => d.rounds.length],
    ["get_project_market", get(`/v1/projects/${ids.withTvl}/market`), (d) => d.tvl_usd > 0],
    ["get_tokenomics", get(`/v1/tokenomics/${encodeURIComponent(ids.token)}`), (d) => d.token.id === ids.token],
    ["list_market_top_movers", get("/v1/markets/top-movers"), (d) => d.gainers.length + d.losers.length],
    ["get_market_snapshot", get("/v1/markets/snapshot"), (d) => d.represented_asset_count],
    ["list_stock_rankings", get("/v1/stocks/rankings"), (d) => d.results.length],
    ["list_fund_rankings", get("/v1/funds/rankings"), (d) => d.results.length],
    ["list_trending_entities", get("/v1/discover/trending"), (d) => d.results.length],
    ["get_news", get(`/v1/news/${ids.news}`), (d) => d.id === ids.news],
    ["get_x_account", get(`/v1/x-accounts/${ids.xAccount}`), (d) => d.id === ids.xAccount],
    ["get_event", get(`/v1/events/${ids.event}`), (d) => d.slug === ids.event],
    ["get_token", get(`/v1/tokens/${ids.marketToken}`), (d) => d.market !== null],
    ["get_token_unlocks", get(`/v1/tokens/${encodeURIComponent(ids.token)}/unlocks?days=365`), (d) => d.token.id === ids.token],
    ["list_narratives", get("/v1/narratives"), (d) => d.results.length],
    ["get_narrative", get(`/v1/narratives/${ids.narrative}`), (d) => d.projects.length],
    ["get_fund", get(`/v1/funds/${ids.fund}`), (d) => d.portfolio.length],
    ["get_stock_news", get(`/v1/stocks/${ids.stock}/news`), (d) => d.stories.length],
  ];
  for (const [operation, call, hasData] of calls) {
    const res = await call();
    expect([operation, res.status], JSON.stringify(res.body)).toEqual([operation, 200]);
    expect([operation, Boolean(hasData(res.body.data))]).toEqual([operation, true]);
    expect(res.body.meta.credits_used).toBeGreaterThan(0);
    expect(res.body.meta.rate_limit.tier).toBe("pro");
  }
  const trending = await get("/v1/projects/trending")();
  expect([trending.status, trending.body.error.code]).toEqual([404, "NOT_FOUND"]);
});

it("stops cleanly on SIGTERM", async () => {
  await server.stop("SIGTERM");
  expect(await server.exited).toEqual({ code: 0, signal: null });
});

it("a restart with the saved demo key revoked names it and creates no other key", async () => {
  const meterFile = join(home, "meter.db");
  const admin = new Database(meterFile);
  admin.prepare("UPDATE keys SET state = 'revoked'").run();
  admin.close();
  const env: NodeJS.ProcessEnv = { ...process.env, CEI_HOME: home, PORT: "0", HOST: "127.0.0.1" };
  const again = await startChildServer(
    ["--import", "tsx", START],
    (lines) => (lines.at(-1)?.includes("Ctrl-C stops the server") ? /cei is serving on (\S+)/.exec(lines.join("\n"))?.[1] : undefined),
    env,
    60_000,
  );
  try {
    expect(again.lines.some((line) => line.startsWith("Demo key"))).toBe(false);
    expect(again.lines.join("\n")).toMatch(/The demo key key_\w+ saved in .*demo-key is revoked: no new key was created/);
  } finally {
    await again.stop("SIGTERM");
  }
  const check = new Database(meterFile, { readonly: true });
  expect(check.prepare("SELECT count(*) FROM keys").pluck().get()).toBe(1);
  check.close();
}, 90_000);
