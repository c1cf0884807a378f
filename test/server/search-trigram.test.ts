// The search reads each named family's own key range and FTS index, only the doclists of the query's
// two rarest trigrams in that family (search_trigrams), and at most a fixed number of candidates.
// Under that limit it must return exactly what a plain scan of search_keys returns: exact keys,
// then prefixes, then substrings, each in key order, restricted to the named families.
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import Database from "better-sqlite3";
import { afterAll, beforeAll, expect, test } from "vitest";
import { compileSnapshot } from "../../compiler/compile.ts";
import { SEARCH_KEY_FAMILIES } from "../../snapshot/search-keys.ts";
import { writeSample } from "../../data/sample.ts";
import { handleSearchHash, handleSearchKey, normaliseHandle } from "../../snapshot/x-ids.ts";
import { createSearchIndex, SEARCH_CANDIDATE_LIMIT, type SearchEntries, type SearchFamily } from "../../server/operations/search-index.ts";

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

interface Row { rowid: number; type: SearchFamily; id: string }
interface SearchHit { type: SearchFamily; id: string }

/** Entries that name their entity only, read back as hits. */
const hitEntries: SearchEntries = {
  families: Object.fromEntries(SEARCH_KEY_FAMILIES.map((family) => [family, `json_object('type', '${family}', 'id', id)`])),
};
const hits = (entries: string[]): SearchHit[] => entries.map((entry) => JSON.parse(entry) as SearchHit);

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
  const index = createSearchIndex(db, undefined, hitEntries);
  const names = db.prepare("SELECT key FROM search_keys WHERE rowid % 37 = 0 ORDER BY rowid").pluck().all() as string[];
  // Whole keys, inner pieces of 2-8 characters (often spanning a space), and texts found nowhere.
  const queries = names.flatMap((name) => [name, name.slice(1, 4), name.slice(2, 9), name.slice(-5), name.slice(0, 2)]).filter((q) => q.trim().length >= 2);
  queries.push("zzqx", "games zz", "xyz protocol");
  expect(queries.length).toBeGreaterThan(100);
  let withSeveralHits = 0;
  for (const families of familySets) {
    for (const query of queries) {
      const expected = referenceSearch(query, families, 20);
      expect(hits(index.search(query, new Set(families), 20)), `${query} in ${families.join(",")}`).toEqual(expected);
      if (expected.length > 1) withSeveralHits += 1;
    }
  }
  expect(withSeveralHits).toBeGreaterThan(200);
});

test("the candidate limit stops a search after that many keys, in key order", () => {
  expect(SEARCH_CANDIDATE_LIMIT).toBeGreaterThanOrEqual(100);
  const limit = 25;
  const index = createSearchIndex(db, undefined, hitEntries, limit);
  // The most common trigrams and bigrams: for 2-3 characters the candidates are exactly the scan's rows.
  const common = db.prepare("SELECT trigram FROM search_trigrams GROUP BY trigram ORDER BY sum(documents) DESC LIMIT 10").pluck().all() as string[];
  const queries = [...common, ...common.map((t) => t.slice(0, 2))].filter((q) => q.trim().length >= 2 && /[\p{L}\p{N}]/u.test(q));
  let cut = 0;
  for (const families of familySets) {
    for (const query of queries) {
      const capped = referenceSearch(query, families, 20, limit);
      expect(hits(index.search(query, new Set(families), 20)), `${query} in ${families.join(",")}`).toEqual(capped);
      if (capped.length < referenceSearch(query, families, 20).length) cut += 1;
    }
  }
  expect(cut).toBeGreaterThan(0);
});

test("a range whose first keys repeat entities is read on until the limit's worth of entities", () => {
  const index = createSearchIndex(db, undefined, hitEntries);
  // Two-character prefixes whose first `limit` person keys name fewer than `limit` people (a
  // name and a slug side by side), while the range holds more: read past its first chunk.
  const limit = 3;
  const prefixes = db.prepare("SELECT DISTINCT substr(key, 1, 2) FROM search_keys WHERE entity_type = 'person'").pluck().all() as string[];
  let readOn = 0;
  for (const prefix of prefixes) {
    const rows = db.prepare("SELECT entity_id FROM search_keys WHERE entity_type = 'person' AND key >= ? AND key < ? ORDER BY rowid")
      .pluck().all(prefix, prefix + "\u{10FFFF}") as string[];
    if (new Set(rows.slice(0, limit)).size === limit || new Set(rows).size < limit) continue;
    readOn += 1;
    const found = hits(index.search(prefix, new Set(["person"]), limit));
    expect(found, prefix).toEqual(referenceSearch(prefix, ["person"], limit));
    expect(found.length, prefix).toBe(limit);
  }
  expect(readOn).toBeGreaterThan(3);
});

test("an exact X handle ranks after the exact keys and before the prefixes, whichever chunk they are read in", () => {
  // A copy whose search keys also hold a handle as an exact key and as two prefixes of longer keys.
  const copy = join(dir, "handle.db");
  db.prepare("VACUUM INTO ?").run(copy);
  const writable = new Database(copy);
  try {
    const [handle, xAccountId] = _someHandle(writable);
    const ids = writable.prepare("SELECT id FROM projects ORDER BY id LIMIT 12").pluck().all() as string[];
    const insert = writable.prepare("INSERT INTO search_keys (key, entity_type, entity_id) VALUES (?, 'project', ?)");
    // The exact key, then eleven longer keys: the first chunk (the limit's worth) ends among the prefixes.
    insert.run(handle, ids[0]);
    ids.slice(1).forEach((id, i) => insert.run(`${handle} ${String(i).padStart(2, "0")}`, id));
    const index = createSearchIndex(writable, handleSearchKey(X_SECRET), { ...hitEntries, handle: (id) => JSON.stringify({ type: "x_account", id }) });
    const account = { type: "x_account", id: xAccountId };
    const project = (id: string) => ({ type: "project", id });
    const families = new Set<SearchFamily>(["project", "x_account"]);
    expect(hits(index.search(handle, families, 10))).toEqual([project(ids[0]!), account, ...ids.slice(1, 9).map(project)]);
    expect(hits(index.search(handle, families, 2))).toEqual([project(ids[0]!), account]);
    expect(hits(index.search(handle, families, 1))).toEqual([project(ids[0]!)]);
    expect(hits(index.search(handle, new Set<SearchFamily>(["project"]), 3))).toEqual(ids.slice(0, 3).map(project));
  } finally {
    writable.close();
  }
});

/** A handle of the sample's X accounts, lower-cased, and its account's id. */
function _someHandle(snapshot: Database.Database): [string, string] {
  const lines = readFileSync(join(dir, "sample", "x_accounts.jsonl"), "utf8").split("\n").filter((line) => line !== "");
  const key = handleSearchKey(X_SECRET);
  const lookup = snapshot.prepare("SELECT x_account_id FROM x_handle_index WHERE handle_hash = ?").pluck();
  for (const line of lines) {
    const handle = normaliseHandle((JSON.parse(line) as { handle: string }).handle);
    const id = lookup.get(handleSearchHash(key, handle)) as string | undefined;
    if (id !== undefined) return [handle, id];
  }
  throw new Error("no handle of the sample is in the snapshot");
}
