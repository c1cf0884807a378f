// Snapshot computations on generated sources: caps, order, tie-breaks, as_of rules, market
// aggregates and benchmark shares.
import { join } from "node:path";
import type Database from "better-sqlite3";
import { afterAll, beforeAll, expect, test } from "vitest";
import { compileSnapshot } from "../../compiler/compile.ts";
import { previousUtcDays } from "../../compiler/families/trending/rankings.ts";
import { FIXTURE_COMPILED_AT } from "../_support/fixtures.ts";
import { manifestOf, openSnapshot } from "../_support/compiled-tables.ts";
import { writeSources } from "../_support/sources.ts";
import { testTempDir } from "../_support/temp.ts";

const pad = (i: number): string => String(i).padStart(3, "0");
const jsonl = (records: unknown[]): string => records.map((r) => JSON.stringify(r)).join("\n") + "\n";

function writeGenerated(dir: string): void {
  const projects = Array.from({ length: 35 }, (_, i) => ({
    id: `p${pad(i)}`, slug: `p-${pad(i)}`, name: `Project ${i}`,
    // Scores tie in pairs, so the id decides; the oldest included observation is p033's.
    trend: [{ observed_at: `2026-03-01T${String(10 + (i % 2)).padStart(2, "0")}:00:00Z`, hot_tier: "hot", score: Math.floor(i / 2) }],
  }));
  const funds = Array.from({ length: 33 }, (_, i) => ({
    id: `f${pad(i)}`, slug: `f-${pad(i)}`, name: `Fund ${i}`, fund_type: "vc", score: i < 3 ? 0 : 100 - Math.floor(i / 2),
    score_updated_at: i < 3 ? "2025-01-01T00:00:00Z" : `2026-02-${String(1 + (i % 28)).padStart(2, "0")}T00:00:00Z`,
  }));
  const stocks = Array.from({ length: 32 }, (_, i) => ({
    id: `s${pad(i)}`, slug: `s-${pad(i)}`, name: `Stock ${i}`, ticker: `S${i}`, exchange: "NYSE", region: "us", crypto_angle: "mining",
    ipo_date: `2025-${String(1 + Math.floor(i / 3)).padStart(2, "0")}-01`, is_pre_ipo: i === 31,
  }));
  const tokens = Array.from({ length: 205 }, (_, i) => ({
    id: `t${pad(i)}`, slug: `t-${pad(i)}`, symbol: `T${i}`, name: `Token ${i}`, benchmark: i === 0 ? "btc" : i === 1 ? "eth" : null,
    market: { observed_at: i === 7 ? "2026-03-01T05:59:00Z" : "2026-03-01T11:00:00Z", rank: i + 1, price_usd: 1,
      market_cap_usd: i < 2 ? 1000 - i * 500 : 10, volume_24h_usd: 2, change_24h_pct: i % 2 === 0 ? 1 : -1, change_7d_pct: (i % 5) - 2 },
  }));
  const person = {
    id: "busy", slug: "busy", full_name: "Busy Person",
    investments: projects.slice(0, 22).map((p, i) => ({ project_id: p.id, invested_at: `2025-01-${String(1 + i).padStart(2, "0")}T00:00:00Z`, verified: true })),
    roles: projects.slice(0, 22).map((p, i) => ({ project_id: p.id, is_current: i === 21, started_at: i % 2 === 0 ? null : `2020-01-${String(1 + i).padStart(2, "0")}` })),
  };
  const live = projects.slice(0, 25).map((p, i) => ({ entity: { type: "project", id: p.id }, day: "live", observed_at: "2026-03-01T11:00:00Z", score: 100 - i }));
  const dated = tokens.slice(0, 22).map((t, i) => ({ entity: { type: "token", id: t.id }, day: "2026-02-10", observed_at: "2026-02-10T12:00:00Z", score: i % 3 }));
  writeSources(dir, {
    "projects.jsonl": jsonl(projects),
    "funds.jsonl": jsonl(funds),
    "stocks.jsonl": jsonl(stocks),
    "tokens.jsonl": jsonl(tokens),
    "people.jsonl": jsonl([person]),
    "trending.jsonl": jsonl([...live, ...dated]),
  });
}

let db: Database.Database;
beforeAll(async () => {
  const dir = testTempDir("cei-snapshots-");
  writeGenerated(dir);
  const outFile = join(dir, "snapshot.db");
  const result = await compileSnapshot({ sourceDir: dir, outFile, compiledAt: FIXTURE_COMPILED_AT });
  if (!result.ok) throw new Error(result.problems.join("\n"));
  db = openSnapshot(outFile);
});
afterAll(() => db.close());

const column = (sql: string): unknown[] => db.prepare(sql).pluck().all();
const asOf = (name: string): unknown => db.prepare("SELECT as_of FROM snapshots WHERE name = ?").pluck().get(name);

test("trending projects: 30 by score desc, ties by id, as_of the oldest included observation", () => {
  const expected = Array.from({ length: 35 }, (_, i) => ({ id: `p${pad(i)}`, score: Math.floor(i / 2) }))
    .sort((a, b) => b.score - a.score || (a.id < b.id ? -1 : 1))
    .slice(0, 30)
    .map((p) => p.id);
  expect(column("SELECT project_id FROM trending_projects ORDER BY position")).toEqual(expected);
  expect(column("SELECT position FROM trending_projects ORDER BY position")).toEqual(Array.from({ length: 30 }, (_, i) => i + 1));
  expect(asOf("trending_projects")).toBe("2026-03-01T10:00:00.000Z");
});

test("fund rankings: top 30 by score, ties by id; as_of ignores funds outside the 30", () => {
  const ids = column("SELECT fund_id FROM fund_rankings ORDER BY position");
  expect(ids).toHaveLength(30);
  expect(ids.slice(0, 4)).toEqual(["f003", "f004", "f005", "f006"]);
  expect(ids).not.toContain("f000");
  expect(asOf("fund_rankings")).toBe("2026-02-01T00:00:00.000Z");
});

test("stock rankings: 30 most recent IPOs incl. pre-IPO, ties by id, no as_of", () => {
  expect(column("SELECT stock_id FROM stock_rankings ORDER BY position").slice(0, 5)).toEqual(["s030", "s031", "s027", "s028", "s029"]);
  expect(column("SELECT count(*) FROM stock_rankings")).toEqual([30]);
  expect(asOf("stock_rankings")).toBeNull();
});

test("market: the top-200 universe, aggregates, benchmark shares and movers", () => {
  expect(column("SELECT count(*) FROM market_assets")).toEqual([199]);
  expect(column("SELECT token_id FROM market_assets ORDER BY position LIMIT 4")).toEqual(["t000", "t001", "t002", "t003"]);
  expect(db.prepare("SELECT * FROM market_snapshot").all()).toEqual([{
    as_of: "2026-03-01T11:00:00.000Z", represented_asset_count: 199, represented_market_cap_usd: 3470, represented_volume_24h_usd: 398,
    btc_price_usd: 1, btc_change_24h_pct: 1, btc_share_of_represented_market_cap_pct: (100 * 1000) / 3470,
    eth_price_usd: 1, eth_change_24h_pct: -1, eth_share_of_represented_market_cap_pct: (100 * 500) / 3470,
  }]);
  expect(manifestOf(db).excluded).toMatchObject({ tokens: { market_outside_top_200: 5, market_observation_stale: 1 } });
  expect(column("SELECT token_id FROM market_movers WHERE period = '24h' AND direction = 'gainer' ORDER BY position").slice(0, 3)).toEqual(["t000", "t002", "t004"]);
  expect(column("SELECT count(*) FROM market_movers GROUP BY period, direction ORDER BY period, direction")).toEqual([20, 20, 20, 20]);
  expect(column("SELECT DISTINCT change_pct FROM market_movers WHERE period = '7d' AND direction = 'loser' ORDER BY position")).toEqual([-2]);
  expect(column("SELECT token_id FROM market_movers WHERE period = '7d' AND direction = 'loser' ORDER BY position LIMIT 2")).toEqual(["t000", "t005"]);
});

test("trending entities: live and dated top 20, a row for each of the previous 30 days", () => {
  expect(column("SELECT entity_id FROM trending_entities WHERE day = 'live' ORDER BY position")).toEqual(Array.from({ length: 20 }, (_, i) => `p${pad(i)}`));
  const dated = column("SELECT entity_id FROM trending_entities WHERE day = '2026-02-10' ORDER BY position");
  expect(dated).toHaveLength(20);
  expect(dated.slice(0, 3)).toEqual(["t002", "t005", "t008"]);
  const days = previousUtcDays(FIXTURE_COMPILED_AT, 30);
  expect(days[0]).toBe("2026-02-28");
  expect(days[29]).toBe("2026-01-30");
  expect(db.prepare("SELECT day, as_of FROM trending_days ORDER BY day").all()).toEqual([
    ...[...days].sort().map((day) => ({ day, as_of: `${day}T23:59:59.999Z` })),
    { day: "live", as_of: "2026-03-01T11:00:00.000Z" },
  ]);
});

test("investments and roles are capped at 20, in the documented order", () => {
  expect(db.prepare("SELECT investment_count, role_count FROM people").get()).toEqual({ investment_count: 22, role_count: 22 });
  expect(column("SELECT project_id FROM person_investments ORDER BY position")).toEqual(Array.from({ length: 20 }, (_, i) => `p${pad(21 - i)}`));
  const roles = column("SELECT project_id FROM person_roles ORDER BY position");
  expect(roles.slice(0, 3)).toEqual(["p021", "p019", "p017"]);
  expect(roles.slice(-2)).toEqual(["p014", "p016"]);
  expect(manifestOf(db).excluded).toMatchObject({ people: { over_list_cap: 4 } });
});
