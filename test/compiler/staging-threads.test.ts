// Large inputs are staged by several threads, each family in one of them; the result must not
// depend on how the families were shared out.
import { mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, expect, test } from "vitest";
import { compileSnapshot, type CompileResult } from "../../compiler/compile.ts";
import { planLanes } from "../../compiler/read-sources.ts";
import { FIXTURE_COMPILED_AT, FIXTURE_X_SECRET, fixtureDir } from "../_support/fixtures.ts";

const dir = mkdtempSync(join(tmpdir(), "cei-worker-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

function compile(fixture: string, threads: number): Promise<CompileResult> {
  return compileSnapshot({
    sourceDir: fixtureDir(fixture),
    outFile: join(dir, `${fixture}-${threads}.db`),
    compiledAt: FIXTURE_COMPILED_AT,
    xSecret: FIXTURE_X_SECRET,
    threads,
  });
}

test("staging on worker threads writes the same bytes as staging on one thread", async () => {
  const [inline, parallel] = [await compile("valid", 1), await compile("valid", 4)];
  expect(inline.ok && parallel.ok).toBe(true);
  const a = readFileSync(join(dir, "valid-1.db"));
  const b = readFileSync(join(dir, "valid-4.db"));
  expect(a.equals(b)).toBe(true);
});

test("staging on worker threads reports the same problems, in the same order", async () => {
  for (const fixture of ["errors-schema", "errors-references", "errors-duplicates"]) {
    const inline = await compile(fixture, 1);
    const parallel = await compile(fixture, 4);
    expect(inline.ok).toBe(false);
    expect(parallel).toEqual(inline);
  }
});

test("no scratch database is left behind, after a success or a failure", async () => {
  const scratch = () => readdirSync(dir).filter((name) => name.includes(".cei-scratch-"));
  expect((await compile("valid", 4)).ok).toBe(true);
  expect(scratch()).toEqual([]);
  // More threads than the compiler uses: capped, and still every lane database removed.
  expect((await compile("valid", 16)).ok).toBe(true);
  expect(scratch()).toEqual([]);
  expect((await compile("errors-references", 4)).ok).toBe(false);
  expect(scratch()).toEqual([]);
});

test("the families are shared out largest first, each lane keeping the files' order", () => {
  const sizes = new Map([
    ["projects", 150], ["tokens", 280], ["people", 30], ["funds", 10], ["stocks", 15], ["narratives", 12], ["news", 50], ["events", 10],
    ["x_accounts", 15], ["trending", 110],
  ]);
  const lanes = planLanes(sizes, 2).map((lane) => lane.map((f) => f.family));
  expect(lanes).toEqual([["tokens", "people", "stocks", "narratives"], ["projects", "funds", "news", "events", "x_accounts", "trending"]]);
  expect(planLanes(sizes, 1).map((lane) => lane.length)).toEqual([10]);
  const many = planLanes(sizes, 4).flat().map((f) => f.family);
  expect(many.sort()).toEqual([...sizes.keys()].sort());
});
