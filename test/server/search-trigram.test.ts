// The search reads each named family's own key range and FTS index, only the doclists of the query's
// two rarest trigrams in that family (search_trigrams), and at most a fixed number of candidates.
// Under that limit it must return exactly what a plain scan of search_keys returns: exact keys,
// then prefixes, then substrings, each in key order, restricted to the named families.
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import Database from "better-sqlite3";
import { afterAll, beforeAll, expect, test } from "vitest";
import { compileSnapshot } from "../../compiler/compile.ts";
import { SEARCH_KEY_FAMILIES } from "../../compiler/snapshot-schema.ts";
import { writeSample } from "../../data/sample.ts";
import { createSearchIndex, SEARCH_CANDIDATE_LIMIT, type SearchFamily, type SearchHit } from "../../server/operations/_search.ts";

const AS_OF = new Date("2026-11-21T12:00:00.000Z");
let dir: string;
let db: Database.Database;

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), "cei-trigram-"));
  await writeSample({ outDir: join(dir, "sample"), asOf: AS_OF, scale: 2 });
  const result = await compileSnapshot({ sourceDir: join(dir, "sample"), outFile: join(dir, "s.db"), compiledAt: AS_OF, xSecret: "trigram-test" });
  if (!result.ok) throw new Error(result.problems.join("\n"));
  db = new Database(join(dir, "s.db"), { readonly: true });
}, 60_000);
afterAll(() => {
  db?.close();
  rmSync(dir, { recursive: true, force: true });
});

interface Row { rowid: number; type: SearchFamily; id: string }

/**
 * The candidates of a plain scan, in the order the search examines them: keys starting with the
 * text (exact ones first, as they sort first), then keys containing it (3+ characters). For texts
 * of 2-3 characters these are exactly the candidates the index reads, so `candidateLimit` applies
 * to the same rows.
 */
function referenceSearch(text: string, families: readonly SearchFamily[], limit: number, candidateLimit = Infinity): SearchHit[] {
  const key = text.trim().toLowerCase();
  const named = JSON.stringify(families);
  const inFamilies = "entity_type IN (SELECT value FROM json_each(?))";
  const rows = [
    ...db.prepare(`SELECT rowid, entity_type AS type, entity_id AS id FROM search_keys WHERE key >= ? AND key < ? AND ${inFamilies} ORDER BY rowid`)
      .all(key, key + "\u{10FFFF}", named),
    ...([...key].length >= 3
      ? db.prepare(`SELECT rowid, entity_type AS type, entity_id AS id FROM search_keys WHERE instr(key, ?) > 0 AND ${inFamilies} ORDER BY rowid`).all(key, named)
      : []),
  ] as Row[];
  const hits: SearchHit[] = [];
  const seen = new Set<string>();
  for (const row of rows.slice(0, candidateLimit)) {
    if (hits.length >= limit) break;
    const id = `${row.type}\u0000${row.id}`;
    if (!seen.has(id)) {
      seen.add(id);
      hits.push({ type: row.type, id: row.id });
    }
  }
  return hits;
}

const familySets: SearchFamily[][] = [
  ["project", "fund", "person", "token", "stock"],
  [...SEARCH_KEY_FAMILIES],
  ...SEARCH_KEY_FAMILIES.map((family) => [family]),
  ["person", "news"],
];

test("search_trigrams holds, for every family and trigram, the number of the family's keys containing it", () => {
  const keys = db.prepare("SELECT entity_type, key FROM search_keys").all() as Array<{ entity_type: string; key: string }>;
  const counts = new Map<string, number>();
  for (const { entity_type: family, key } of keys) {
    const chars = [...key];
    const trigrams = new Set<string>();
    for (let i = 0; i + 3 <= chars.length; i++) trigrams.add(chars.slice(i, i + 3).join(""));
    for (const t of trigrams) counts.set(`${family} ${t}`, (counts.get(`${family} ${t}`) ?? 0) + 1);
  }
  const stored = db.prepare("SELECT entity_type, trigram, documents FROM search_trigrams").all() as Array<{ entity_type: string; trigram: string; documents: number }>;
  expect(new Set(stored.map((r) => r.entity_type))).toEqual(new Set(SEARCH_KEY_FAMILIES));
  expect(stored.length).toBe(counts.size);
  for (const r of stored) expect(counts.get(`${r.entity_type} ${r.trigram}`), `${r.entity_type} ${r.trigram}`).toBe(r.documents);
});

test("every family's FTS index holds exactly that family's keys", () => {
  for (const family of SEARCH_KEY_FAMILIES) {
    const keyed = db.prepare("SELECT count(*) FROM search_keys WHERE entity_type = ?").pluck().get(family) as number;
    expect(keyed, family).toBeGreaterThan(0);
    // A contentless index answers rowids only: the rows holding a trigram of the family's first key.
    const first = db.prepare("SELECT rowid, key FROM search_keys WHERE entity_type = ? AND length(key) >= 3 ORDER BY rowid LIMIT 1").get(family) as { rowid: number; key: string };
    const rowids = db.prepare(`SELECT rowid FROM search_fts_${family} WHERE search_fts_${family} MATCH ?`).pluck().all(`"${first.key.slice(0, 3).replaceAll('"', '""')}"`) as number[];
    const expected = db.prepare("SELECT rowid FROM search_keys WHERE entity_type = ? AND instr(key, ?) > 0 ORDER BY rowid").pluck().all(family, first.key.slice(0, 3));
    expect(rowids, family).toEqual(expected);
  }
});

test("under the candidate limit, search returns exactly what a plain scan returns, in the same order, for any families", () => {
  const index = createSearchIndex(db, undefined);
  const names = db.prepare("SELECT key FROM search_keys WHERE rowid % 37 = 0 ORDER BY rowid").pluck().all() as string[];
  // Whole keys, inner pieces of 2-8 characters (often spanning a space), and texts found nowhere.
  const queries = names.flatMap((name) => [name, name.slice(1, 4), name.slice(2, 9), name.slice(-5), name.slice(0, 2)]).filter((q) => q.trim().length >= 2);
  queries.push("zzqx", "games zz", "xyz protocol");
  expect(queries.length).toBeGreaterThan(100);
  let withSeveralHits = 0;
  for (const families of familySets) {
    for (const query of queries) {
      const expected = referenceSearch(query, families, 20);
      expect(index.search(query, new Set(families), 20), `${query} in ${families.join(",")}`).toEqual(expected);
      if (expected.length > 1) withSeveralHits += 1;
    }
  }
  expect(withSeveralHits).toBeGreaterThan(200);
});

test("the candidate limit stops a search after that many keys, in key order", () => {
  expect(SEARCH_CANDIDATE_LIMIT).toBeGreaterThanOrEqual(100);
  const limit = 25;
  const index = createSearchIndex(db, undefined, limit);
  // The most common trigrams and bigrams: for 2-3 characters the candidates are exactly the scan's rows.
  const common = db.prepare("SELECT trigram FROM search_trigrams GROUP BY trigram ORDER BY sum(documents) DESC LIMIT 10").pluck().all() as string[];
  const queries = [...common, ...common.map((t) => t.slice(0, 2))].filter((q) => q.trim().length >= 2 && /[\p{L}\p{N}]/u.test(q));
  let cut = 0;
  for (const families of familySets) {
    for (const query of queries) {
      const capped = referenceSearch(query, families, 20, limit);
      expect(index.search(query, new Set(families), 20), `${query} in ${families.join(",")}`).toEqual(capped);
      if (capped.length < referenceSearch(query, families, 20).length) cut += 1;
    }
  }
  expect(cut).toBeGreaterThan(0);
});
