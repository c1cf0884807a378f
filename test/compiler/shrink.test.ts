// The shrink guard: a compile over an earlier snapshot is refused when a family or a precomputed
// snapshot would lose more than 10% of its records or become empty (unless allowShrink), with the
// diff of what would change, and the earlier file is left byte for byte; a file at --out that is
// not a snapshot is never replaced.
import { cpSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { beforeAll, expect, test } from "vitest";
import { compileSnapshot, type CompileOptions } from "../../compiler/compile.ts";
import { shrinkProblems } from "../../compiler/shrink.ts";
import { FIXTURE_COMPILED_AT, FIXTURE_X_SECRET, fixtureDir } from "../_support/fixtures.ts";
import { testTempDir } from "../_support/temp.ts";

let dir: string;
let outFile: string;
let earlier: Buffer;
const compile = (options: Partial<CompileOptions>) =>
  compileSnapshot({ sourceDir: fixtureDir("valid"), outFile, compiledAt: FIXTURE_COMPILED_AT, xSecret: FIXTURE_X_SECRET, ...options });

beforeAll(async () => {
  dir = testTempDir("cei-shrink-");
  outFile = join(dir, "snapshot.db");
  const first = await compile({ describeChanges: true });
  expect(first.ok && first.changes).toBe(null);
  earlier = readFileSync(outFile);
});

test("a family losing more than 10% is refused with the diff, and accepted with allowShrink", async () => {
  const source = join(dir, "fewer-funds");
  cpSync(fixtureDir("valid"), source, { recursive: true });
  const funds = readFileSync(join(source, "funds.jsonl"), "utf8").split("\n");
  writeFileSync(join(source, "funds.jsonl"), funds.filter((line) => !line.startsWith('{"id": "fund_draco"')).join("\n"));
  const refused = await compile({ sourceDir: source });
  expect(refused.ok).toBe(false);
  expect(!refused.ok && refused.problems).toEqual([
    `${outFile}: (root): funds would shrink from 5 to 4 records (-20%), more than the 10% allowed; --allow-shrink replaces it knowingly`,
    `${outFile}: (root): fund_rankings would shrink from 5 to 4 entries (-20%), more than the 10% allowed; --allow-shrink replaces it knowingly`,
  ]);
  expect(!refused.ok && refused.changes?.families.funds?.removed.map((r) => r.id)).toEqual(["fund_draco"]);
  expect(readFileSync(outFile).equals(earlier)).toBe(true);
  const accepted = await compile({ sourceDir: source, allowShrink: true, describeChanges: true });
  expect(accepted.ok && accepted.changes?.summary.families.funds).toEqual({ added: 0, removed: 1, changed: 0 });
  // Back to all five funds: growing is never refused.
  const grown = await compile({ describeChanges: true });
  expect(grown.ok && grown.changes?.summary.families.funds).toEqual({ added: 1, removed: 0, changed: 0 });
  expect(readFileSync(outFile).equals(earlier)).toBe(true);
});

test("precomputed snapshots that would become empty are refused", async () => {
  const result = await compile({ compiledAt: new Date("2026-03-05T12:00:00.000Z"), allowStale: true });
  expect(result.ok ? [] : result.problems).toEqual([
    `${outFile}: (root): trending_projects would become empty (it has 4 entries); --allow-shrink replaces it knowingly`,
    `${outFile}: (root): trending_entities would shrink from 14 to 8 entries (-43%), more than the 10% allowed; --allow-shrink replaces it knowingly`,
    `${outFile}: (root): narrative_rankings would become empty (it has 2 entries); --allow-shrink replaces it knowingly`,
    `${outFile}: (root): market would become empty (it has 6 entries); --allow-shrink replaces it knowingly`,
    `${outFile}: (root): market_snapshot would become empty (it has 1 rows); --allow-shrink replaces it knowingly`,
  ]);
  expect(readFileSync(outFile).equals(earlier)).toBe(true);
});

test("a file at --out that is not a snapshot is never replaced; an empty one is", async () => {
  const notes = join(dir, "notes.txt");
  writeFileSync(notes, "my notes");
  expect(await compile({ outFile: notes })).toEqual({
    ok: false,
    problems: [`${notes}: (root): --out holds a file that is not a cei snapshot (not an SQLite database); it was not replaced: move it away or choose another --out`],
  });
  expect(readFileSync(notes, "utf8")).toBe("my notes");
  const empty = join(dir, "empty.db");
  writeFileSync(empty, "");
  expect((await compile({ outFile: empty })).ok).toBe(true);
});

test("the limit: losing 10% is accepted, more is not; an empty family or snapshot is never accepted", () => {
  const manifest = (counts: Record<string, number>) => ({ row_counts: counts });
  expect(shrinkProblems("s.db", manifest({ projects: 10, fund_rankings: 3 }), manifest({ projects: 9, fund_rankings: 3 }))).toEqual([]);
  expect(shrinkProblems("s.db", manifest({ projects: 100 }), manifest({ projects: 89 }))).toEqual([
    "s.db: (root): projects would shrink from 100 to 89 records (-11%), more than the 10% allowed; --allow-shrink replaces it knowingly",
  ]);
  expect(shrinkProblems("s.db", manifest({ fund_rankings: 1, news: 0 }), manifest({ fund_rankings: 0, news: 0 }))).toEqual([
    "s.db: (root): fund_rankings would become empty (it has 1 entries); --allow-shrink replaces it knowingly",
  ]);
});
