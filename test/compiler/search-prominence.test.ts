// Decision 29's compiled prominence and stored order, on fixtures/valid: each signal's score
// (compiler/policy.ts, prominenceScores), the highest counting, and the order the search index is
// stored in: prominence (none last), then the shorter name, then id.
import Database from "better-sqlite3";
import { afterAll, beforeAll, expect, test } from "vitest";
import { compileFixture } from "../_support/fixtures.ts";

let db: Database.Database;
beforeAll(async () => {
  db = new Database(await compileFixture("valid"), { readonly: true });
}, 60_000);
afterAll(() => db?.close());

const prominence = (type: string, id: string) =>
  db.prepare("SELECT prominence FROM search_entities WHERE entity_type = ? AND entity_id = ?").pluck().get(type, id) as number | null;

test("a token's market position scores 1001 - position", () => {
  const positions = db.prepare("SELECT token_id, position FROM market_assets").all() as Array<{ token_id: string; position: number }>;
  expect(positions.length).toBeGreaterThan(2);
  for (const { token_id: id, position } of positions) expect(prominence("token", id), id).toBe(1001 - position);
});

test("a project's TVL scores 100 per power of ten of US dollars", () => {
  const tvl = db.prepare("SELECT tvl_usd FROM project_tvl WHERE project_id = 'proj_aurora'").pluck().get() as number;
  expect(prominence("project", "proj_aurora")).toBe(Math.round(100 * Math.log10(tvl)));
});

test("trending appearances score 100 each; the highest signal counts, curated included", () => {
  // Delta: trending projects only (1 appearance); Echo: 2 appearances (200) beat its curated 150;
  // Cobalt: curated 950 only, above Aurora's TVL score; Cygnus: curated 40 only.
  expect(prominence("project", "proj_delta")).toBe(100);
  expect(prominence("project", "proj_echo")).toBe(200);
  expect(prominence("project", "proj_cobalt")).toBe(950);
  expect(prominence("fund", "fund_cygnus")).toBe(40);
  expect(prominence("person", "person_alice")).toBe(100);
  expect(prominence("fund", "fund_atlas")).toBeNull();
  // Narratives: the narrative rankings count as a trending snapshot. Restaking: ranked and live
  // trending (200); DeFi: ranked only (100); Real-World Assets: curated 40, not ranked.
  expect(prominence("narrative", "nar_restaking")).toBe(200);
  expect(prominence("narrative", "nar_defi")).toBe(100);
  expect(prominence("narrative", "nar_rwa")).toBe(40);
});

test("the stored order is prominence, then the shorter name, then id; hidden records are not in it", () => {
  const rows = db.prepare(`SELECT e.ord, e.entity_type, e.entity_id, e.prominence,
      coalesce(p.name, t.name, f.name, s.name, pe.full_name, n.title, ev.name, nr.name) AS name
    FROM search_entities e
      LEFT JOIN projects p ON e.entity_type = 'project' AND p.id = e.entity_id
      LEFT JOIN tokens t ON e.entity_type = 'token' AND t.id = e.entity_id
      LEFT JOIN funds f ON e.entity_type = 'fund' AND f.id = e.entity_id
      LEFT JOIN stocks s ON e.entity_type = 'stock' AND s.id = e.entity_id
      LEFT JOIN people pe ON e.entity_type = 'person' AND pe.id = e.entity_id
      LEFT JOIN news n ON e.entity_type = 'news' AND n.id = e.entity_id
      LEFT JOIN events ev ON e.entity_type = 'event' AND ev.id = e.entity_id
      LEFT JOIN narratives nr ON e.entity_type = 'narrative' AND nr.id = e.entity_id
    ORDER BY e.ord`).all() as Array<{ ord: number; entity_type: string; entity_id: string; prominence: number | null; name: string | null }>;
  const sortKey = (r: (typeof rows)[number]) => [-(r.prominence ?? 0), [...(r.name ?? "")].length, r.entity_id, r.entity_type] as const;
  const sorted = [...rows].sort((a, b) => {
    const [x, y] = [sortKey(a), sortKey(b)];
    for (let i = 0; i < x.length; i++) if (x[i] !== y[i]) return x[i]! < y[i]! ? -1 : 1;
    return 0;
  });
  expect(rows.map((r) => r.entity_id)).toEqual(sorted.map((r) => r.entity_id));
  expect(rows.map((r) => r.entity_id)).not.toContain("proj_hidden");
  expect(rows[0]).toMatchObject({ entity_type: "token", entity_id: "tok_btc", prominence: 1000 });
});

test("exact keys hold names, slugs, ids, symbols and a project's own token symbol, folded", () => {
  const keys = (type: string, id: string) =>
    db.prepare("SELECT key FROM search_exact WHERE entity_type = ? AND entity_id = ? ORDER BY key").pluck().all(type, id);
  expect(keys("token", "tok_aur")).toEqual(["aur", "aurora", "aurora token", "tok aur"]);
  expect(keys("project", "proj_aurora")).toEqual(["aur", "aurora swap", "proj aurora"]);
  expect(keys("stock", "stk_kumo")).toContain("kumo");
  expect(db.prepare("SELECT count(*) FROM search_exact WHERE entity_type = 'x_account'").pluck().get()).toBeGreaterThan(0);
});
