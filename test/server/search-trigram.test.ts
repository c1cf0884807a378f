// Substring search reads only the doclists of the query's two rarest trigrams (search_trigrams) and
// filters with instr(). It must return exactly what a phrase query over the whole text returns.
import { join } from "node:path";
import Database from "better-sqlite3";
import { beforeAll, expect, test } from "vitest";
import { compileSnapshot } from "../../compiler/compile.ts";
import { writeSample } from "../../data/sample.ts";
import { createSearchIndex, searchFamilies, type SearchHit } from "../../server/operations/_search.ts";
import { testTempDir } from "../_support/temp.ts";

const AS_OF = new Date("2026-11-21T12:00:00.000Z");
let db: Database.Database;

beforeAll(async () => {
  const dir = testTempDir("cei-trigram-");
  await writeSample({ outDir: join(dir, "sample"), asOf: AS_OF, scale: 2 });
  const result = await compileSnapshot({ sourceDir: join(dir, "sample"), outFile: join(dir, "s.db"), compiledAt: AS_OF, xSecret: "trigram-test" });
  if (!result.ok) throw new Error(result.problems.join("\n"));
  db = new Database(join(dir, "s.db"), { readonly: true });
}, 60_000);

/** The search as it was before search_trigrams: exact, prefix, then an FTS phrase query. */
function referenceSearch(text: string, limit: number): SearchHit[] {
  const key = text.trim().toLowerCase();
  const hits: SearchHit[] = [];
  const seen = new Set<string>();
  const rows = [
    ...db.prepare("SELECT entity_type AS type, entity_id AS id FROM search_keys WHERE key = ? ORDER BY entity_type, entity_id").all(key),
    ...db.prepare("SELECT entity_type AS type, entity_id AS id FROM search_keys WHERE key > ? AND key < ? ORDER BY key, entity_type, entity_id").all(key, key + "\u{10FFFF}"),
    ...([...key].length >= 3
      ? db.prepare(`SELECT k.entity_type AS type, k.entity_id AS id FROM search_fts JOIN search_keys k ON k.rowid = search_fts.rowid
                    WHERE search_fts MATCH ? ORDER BY search_fts.rowid`).all(`"${key.replaceAll('"', '""')}"`)
      : []),
  ] as SearchHit[];
  for (const row of rows) {
    if (hits.length >= limit) break;
    const id = `${row.type}\u0000${row.id}`;
    if (!seen.has(id)) {
      seen.add(id);
      hits.push({ type: row.type, id: row.id });
    }
  }
  return hits;
}

test("search_trigrams holds, for every trigram, the number of keys containing it", () => {
  const keys = db.prepare("SELECT key FROM search_keys").pluck().all() as string[];
  const counts = new Map<string, number>();
  for (const key of keys) {
    const chars = [...key];
    const trigrams = new Set<string>();
    for (let i = 0; i + 3 <= chars.length; i++) trigrams.add(chars.slice(i, i + 3).join(""));
    for (const t of trigrams) counts.set(t, (counts.get(t) ?? 0) + 1);
  }
  const stored = new Map((db.prepare("SELECT trigram, documents FROM search_trigrams").all() as Array<{ trigram: string; documents: number }>).map((r) => [r.trigram, r.documents]));
  expect(stored.size).toBe(counts.size);
  for (const [trigram, documents] of counts) expect(stored.get(trigram), trigram).toBe(documents);
});

test("substring search returns exactly what the whole-text phrase query returned, in the same order", () => {
  const index = createSearchIndex(db);
  const families = new Set(searchFamilies.filter((f) => f !== "x_account"));
  const names = db.prepare("SELECT key FROM search_keys WHERE rowid % 37 = 0 ORDER BY rowid").pluck().all() as string[];
  // Whole keys, inner pieces of 3-8 characters (often spanning a space), and texts found nowhere.
  const queries = names.flatMap((name) => [name, name.slice(1, 4), name.slice(2, 9), name.slice(-5)]).filter((q) => q.trim().length >= 2);
  queries.push("zzqx", "games zz", "xyz protocol");
  expect(queries.length).toBeGreaterThan(100);
  let withSubstringHits = 0;
  for (const query of queries) {
    const expected = referenceSearch(query, 20);
    expect(index.search(query, families, 20), query).toEqual(expected);
    if (expected.length > 1) withSubstringHits += 1;
  }
  expect(withSubstringHits).toBeGreaterThan(50);
});
