// The search reads each named family's exact keys and trigram index, only the doclists of the
// query's rarest trigrams, and at most a fixed number of candidates per pass. Under that limit it
// must return exactly what decision 29's rule gives when applied to every searchable entity:
// class by class (exact, every word a word prefix of the name, name or slug starts with the query,
// the query inside the name or slug), each class in the stored order.
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import Database from "better-sqlite3";
import { afterAll, beforeAll, expect, test } from "vitest";
import { compileSnapshot } from "../../compiler/compile.ts";
import { fold, foldedWords } from "../../snapshot/fold.ts";
import { NAMED_SEARCH_FAMILIES, SEARCH_KEY_FAMILIES, SEARCH_TRIGRAM_INDEXES, type SearchKeyFamily } from "../../snapshot/search-keys.ts";
import { writeSample } from "../../data/sample.ts";
import { handleSearchKey, normaliseHandle } from "../../snapshot/x-ids.ts";
import {
  candidateTrigrams, createSearchIndex, SEARCH_CANDIDATE_LIMIT, searchIndexesFor, type SearchEntries, type SearchFamily,
} from "../../server/operations/search-index.ts";

const AS_OF = new Date("2026-11-21T12:00:00.000Z");
const X_SECRET = "trigram-test";
let dir: string;
let db: Database.Database;

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), "cei-trigram-"));
  await writeSample({ outDir: join(dir, "sample"), asOf: AS_OF, scale: 2 });
  const result = await compileSnapshot({ sourceDir: join(dir, "sample"), outFile: join(dir, "s.db"), compiledAt: AS_OF, xSecret: X_SECRET });
  if (!result.ok) throw new Error(result.problems.join("\n"));
  db = new Database(join(dir, "s.db"), { readonly: true });
}, 60_000);
afterAll(() => {
  db?.close();
  rmSync(dir, { recursive: true, force: true });
});

interface Entity { ord: number; type: SearchFamily; id: string; name: string | null; slug: string | null }
interface SearchHit { type: SearchFamily; id: string }

/** Entries that name their entity only, read back as hits. */
const hitEntries: SearchEntries = {
  families: Object.fromEntries(SEARCH_KEY_FAMILIES.map((family) => [family, `json_object('type', '${family}', 'id', id)`])),
};
const hits = (entries: string[]): SearchHit[] => entries.map((entry) => JSON.parse(entry) as SearchHit);

let everyEntity: Entity[] | undefined;
let exactKeys: Map<string, Set<number>> | undefined;

/** Decision 29's rule over every searchable entity, in the stored order, without an index or a limit on candidates. */
function referenceSearch(text: string, families: readonly SearchFamily[], limit: number): SearchHit[] {
  everyEntity ??= db.prepare("SELECT ord, entity_type AS type, entity_id AS id, name, slug FROM search_entities ORDER BY ord").all() as Entity[];
  if (exactKeys === undefined) {
    exactKeys = new Map();
    for (const { key, ord } of db.prepare("SELECT key, ord FROM search_exact").iterate() as Iterable<{ key: string; ord: number }>) {
      exactKeys.set(key, (exactKeys.get(key) ?? new Set()).add(ord));
    }
  }
  const query = fold(text.trim());
  const exact = exactKeys.get(query) ?? new Set<number>();
  const words = foldedWords(query);
  const classOf = ({ ord, name, slug }: Entity): number => {
    if (exact.has(ord)) return 1;
    if (name !== null && words.every((word) => ` ${name}`.includes(` ${word}`))) return 2;
    if (name?.startsWith(query) === true || slug?.startsWith(query) === true) return 3;
    if ([...query].length >= 3 && (name?.includes(query) === true || slug?.includes(query) === true)) return 4;
    return 0;
  };
  const found: Array<{ entity: Entity; matchClass: number }> = [];
  for (const entity of everyEntity) {
    if (!families.includes(entity.type)) continue;
    const matchClass = classOf(entity);
    if (matchClass > 0) found.push({ entity, matchClass });
  }
  return found
    .sort((a, b) => a.matchClass - b.matchClass || a.entity.ord - b.entity.ord)
    .slice(0, limit)
    .map(({ entity }) => ({ type: entity.type, id: entity.id }));
}

const familySets: SearchFamily[][] = [
  ["project", "fund", "person", "token", "stock", "x_account"],
  ["project", "fund", "person", "token", "stock"],
  ["project", "fund", "person", "token"],
  [...SEARCH_KEY_FAMILIES],
  ...SEARCH_KEY_FAMILIES.map((family) => [family]),
  ["person", "news"],
];

test("search_trigrams holds, for every trigram index and trigram, the number of the index's entities holding it, and its size", () => {
  const rows = db.prepare("SELECT entity_type, name, slug FROM search_entities WHERE name IS NOT NULL OR slug IS NOT NULL")
    .all() as Array<{ entity_type: SearchKeyFamily; name: string | null; slug: string | null }>;
  const counts = new Map<string, number>();
  const count = (key: string) => counts.set(key, (counts.get(key) ?? 0) + 1);
  for (const { entity_type: family, name, slug } of rows) {
    const chars = [...` ${name ?? ""}${slug === null ? "" : `\n ${slug}`}`];
    const trigrams = new Set<string>([""]);
    for (let i = 0; i + 3 <= chars.length; i++) trigrams.add(chars.slice(i, i + 3).join(""));
    for (const { name: index } of SEARCH_TRIGRAM_INDEXES.filter(({ families }) => families.includes(family))) {
      for (const t of trigrams) count(`${index} ${t}`);
    }
  }
  const stored = db.prepare("SELECT search_index, trigram, documents FROM search_trigrams").all() as Array<{ search_index: string; trigram: string; documents: number }>;
  expect(new Set(stored.map((r) => r.search_index))).toEqual(new Set(["default", ...NAMED_SEARCH_FAMILIES]));
  expect(SEARCH_TRIGRAM_INDEXES.find(({ name }) => name === "default")!.families).toEqual(["fund", "person", "project", "stock", "token"]);
  expect(stored.length).toBe(counts.size);
  for (const r of stored) expect(counts.get(`${r.search_index} ${r.trigram}`), `${r.search_index} ${r.trigram}`).toBe(r.documents);
  // The default index holds the default families' entities, each once, in the stored order.
  const inDefault = db.prepare("SELECT count(*) FROM search_entities WHERE entity_type IN ('fund', 'person', 'project', 'stock', 'token')").pluck().get();
  expect(stored.find((r) => r.search_index === "default" && r.trigram === "")!.documents).toBe(inDefault);
});

test("the stored order is prominence (higher first, none last), then the shorter name, then id", () => {
  const rows = db.prepare("SELECT ord, entity_type, entity_id, prominence FROM search_entities ORDER BY ord").all() as Array<{ ord: number; prominence: number | null }>;
  expect(rows.map((r) => r.ord)).toEqual(rows.map((_, i) => i + 1));
  const prominence = rows.map((r) => r.prominence ?? 0);
  expect(prominence).toEqual([...prominence].sort((a, b) => b - a));
  expect(prominence.filter((p) => p > 0).length).toBeGreaterThan(50);
  expect(prominence.filter((p) => p === 0).length).toBeGreaterThan(50);
});

test("under the candidate limit, search returns exactly what the rule gives, in the same order, for any families", () => {
  const index = createSearchIndex(db, undefined, hitEntries);
  const names = db.prepare("SELECT name FROM search_entities WHERE name IS NOT NULL AND ord % 13 = 0 ORDER BY ord").pluck().all() as string[];
  const slugs = db.prepare("SELECT slug FROM search_entities WHERE slug IS NOT NULL AND ord % 17 = 0 ORDER BY ord").pluck().all() as string[];
  const ids = db.prepare("SELECT entity_id FROM search_entities WHERE ord % 23 = 0 ORDER BY ord").pluck().all() as string[];
  // Whole names and slugs, pieces of 2-8 characters (often spanning a space), words in another
  // order, word prefixes, ids, and texts found nowhere.
  const queries = [
    ...names.flatMap((name) => {
      const words = name.split(" ");
      return [name, name.slice(1, 4), name.slice(2, 9), name.slice(-5), name.slice(0, 2), [...words].reverse().join(" "), words.map((w) => w.slice(0, 3)).join(" ")];
    }),
    ...slugs.flatMap((slug) => [slug, slug.replaceAll(" ", "-"), slug.slice(0, 6)]),
    ...ids,
    "zzqx", "games zz", "xyz protocol",
  ].filter((q) => q.trim().length >= 2 && foldedWords(fold(q)).some((word) => [...word].length > 1));
  expect(queries.length).toBeGreaterThan(300);
  let withSeveralHits = 0;
  for (const families of familySets) {
    for (const query of queries) {
      const expected = referenceSearch(query, families, 20);
      expect(hits(index.search(query, new Set(families), 20)), `${query} in ${families.join(",")}`).toEqual(expected);
      if (expected.length > 1) withSeveralHits += 1;
    }
  }
  expect(withSeveralHits).toBeGreaterThan(500);
});

test("a query whose two passes would read the same trigrams gets one pass, and still exactly the rule's results", () => {
  const index = createSearchIndex(db, undefined, hitEntries);
  const lookup = db.prepare("SELECT search_index AS \"index\", documents FROM search_trigrams WHERE trigram = ?");
  const trigrams = candidateTrigrams((trigram) => lookup.all(trigram) as Array<{ index: string; documents: number }>, SEARCH_CANDIDATE_LIMIT);
  const names = db.prepare("SELECT name FROM search_entities WHERE name IS NOT NULL AND ord % 3 = 0 ORDER BY ord").pluck().all() as string[];
  // Pieces of names: a word's first trigram is common (a space and a frequent pair), its inner ones rarer.
  const pieces = [...new Set(names.flatMap((name) => name.split(" ").filter((word) => word.length >= 4).map((word) => word.slice(0, 5))))];
  let onePass = 0;
  for (const families of familySets) {
    const indexes = searchIndexesFor(NAMED_SEARCH_FAMILIES.filter((family) => families.includes(family)));
    for (const query of pieces) {
      const words = trigrams.match([` ${query}`], indexes);
      const substrings = trigrams.match([query], indexes);
      if (words === undefined || JSON.stringify(words) !== JSON.stringify(substrings)) continue;
      onePass += 1;
      expect(hits(index.search(query, new Set(families), 20)), `${query} in ${families.join(",")}`).toEqual(referenceSearch(query, families, 20));
    }
  }
  expect(onePass).toBeGreaterThan(50);
});

test.each([
  ["three families, each its own index", ["project", "token", "person"]],
  ["the default families, one index", ["project", "fund", "person", "token", "stock", "x_account"]],
] as Array<[string, SearchFamily[]]>)("the candidate limit bounds each pass: fewer matches, never a wrong one (%s)", (_, families) => {
  const budget = 3;
  const index = createSearchIndex(db, undefined, hitEntries, budget);
  const named = families.filter((family) => family !== "x_account").map((family) => `'${family}'`).join(", ");
  // The most common trigrams: far more candidates than the budget.
  const common = db.prepare(`SELECT trigram FROM search_trigrams WHERE search_index IN (${named})
    AND trigram NOT LIKE '% %' AND trigram NOT LIKE '%' || char(10) || '%' AND trigram <> '' GROUP BY trigram ORDER BY sum(documents) DESC LIMIT 10`).pluck().all() as string[];
  let cut = 0;
  for (const query of common) {
    const full = referenceSearch(query, families, 1_000);
    const found = hits(index.search(query, new Set(families), 20));
    const position = found.map((hit) => full.findIndex((h) => h.id === hit.id && h.type === hit.type));
    expect(position.every((p) => p >= 0), query).toBe(true);
    // Two passes of three candidates each, beside the exact matches (a match the first pass did
    // not reach may come in the second, after the matches of the first).
    const exact = db.prepare(`SELECT count(*) FROM search_exact WHERE key = ? AND entity_type IN (${named})`).pluck().get(query) as number;
    expect(found.length, query).toBeLessThanOrEqual(exact + 2 * budget);
    if (full.length >= 10 && found.length < Math.min(20, full.length)) cut += 1;
  }
  expect(cut).toBeGreaterThan(3);
});

test("an exact X handle takes its place among the exact matches by the stored order, with or without @", () => {
  const index = createSearchIndex(db, handleSearchKey(X_SECRET), hitEntries);
  const lines = readFileSync(join(dir, "sample", "x_accounts.jsonl"), "utf8").split("\n").filter((line) => line !== "");
  let checked = 0;
  for (const line of lines.slice(0, 40)) {
    const handle = normaliseHandle((JSON.parse(line) as { handle: string }).handle);
    const found = hits(index.search(`@${handle.toUpperCase()}`, new Set(["x_account", "project", "person"]), 20));
    const account = found.find((hit) => hit.type === "x_account");
    if (account === undefined) continue;
    checked += 1;
    expect(hits(index.search(handle, new Set(["x_account", "project", "person"]), 20))).toEqual(found);
    // Its id finds it too, and the exact matches around it are in the stored order.
    expect(hits(index.search(account.id, new Set(["x_account"]), 5))).toEqual([account]);
    const ord = (hit: SearchHit) => db.prepare("SELECT ord FROM search_entities WHERE entity_type = ? AND entity_id = ?").pluck().get(hit.type, hit.id) as number;
    const exactCount = (db.prepare("SELECT count(*) FROM search_exact WHERE key = ? AND entity_type IN ('project', 'person')").pluck().get(fold(handle)) as number) + 1;
    const exact = found.slice(0, exactCount).map(ord);
    expect(exact).toEqual([...exact].sort((a, b) => a - b));
  }
  expect(checked).toBeGreaterThan(10);
});
