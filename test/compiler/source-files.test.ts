// Every entry of the source folder is accounted for: an unknown file is a problem naming the
// closest family file, a missing family file is a problem (an empty file is an intentionally
// empty family), a folder without family files is a problem; README* and dotfiles are ignored.
// Each failed compile leaves the earlier snapshot at --out byte for byte.
import { cpSync, mkdirSync, readFileSync, renameSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { beforeAll, expect, test } from "vitest";
import { compileSnapshot } from "../../compiler/compile.ts";
import { closestFamilyFile } from "../../compiler/source-files.ts";
import { FIXTURE_COMPILED_AT, FIXTURE_X_SECRET, fixtureDir } from "../_support/fixtures.ts";
import { testTempDir } from "../_support/temp.ts";

let dir: string;
let outFile: string;
let earlier: Buffer;

beforeAll(async () => {
  dir = testTempDir("cei-source-files-");
  outFile = join(dir, "snapshot.db");
  const result = await compileSnapshot({ sourceDir: fixtureDir("valid"), outFile, compiledAt: FIXTURE_COMPILED_AT, xSecret: FIXTURE_X_SECRET });
  if (!result.ok) throw new Error(result.problems.join("\n"));
  earlier = readFileSync(outFile);
});

/** A copy of fixtures/valid changed by `change`, compiled over the earlier snapshot. */
async function compileChanged(name: string, change: (source: string) => void) {
  const source = join(dir, name);
  cpSync(fixtureDir("valid"), source, { recursive: true });
  change(source);
  return compileSnapshot({ sourceDir: source, outFile, compiledAt: FIXTURE_COMPILED_AT, xSecret: FIXTURE_X_SECRET });
}

async function expectProblems(name: string, change: (source: string) => void, problems: string[]): Promise<void> {
  expect(await compileChanged(name, change)).toEqual({ ok: false, problems });
  expect(readFileSync(outFile).equals(earlier)).toBe(true);
}

test("a misspelt extra file is a problem naming the family file it resembles", async () => {
  await expectProblems("misspelt", (source) => writeFileSync(join(source, "projetcs.jsonl"), '{"id":"p_new","slug":"p-new","name":"New"}\n'), [
    "projetcs.jsonl: (root): not a family file, so not read: did you mean projects.jsonl?",
  ]);
});

test("a family file named in another case is unknown, and its family missing", async () => {
  await expectProblems("case", (source) => renameSync(join(source, "events.jsonl"), join(source, "Events.jsonl")), [
    "Events.jsonl: (root): not a family file, so not read: did you mean events.jsonl?",
    "events.jsonl: (root): missing: if the family is intentionally empty, create an empty events.jsonl",
  ]);
});

test("a missing family file is a problem; an empty one is a family intentionally empty", async () => {
  await expectProblems("missing", (source) => rmSync(join(source, "events.jsonl")), [
    "events.jsonl: (root): missing: if the family is intentionally empty, create an empty events.jsonl",
  ]);
  const source = join(dir, "emptied");
  cpSync(fixtureDir("valid"), source, { recursive: true });
  writeFileSync(join(source, "events.jsonl"), "");
  const fresh = await compileSnapshot({ sourceDir: source, outFile: join(dir, "fresh.db"), compiledAt: FIXTURE_COMPILED_AT, xSecret: FIXTURE_X_SECRET });
  expect(fresh.ok && (fresh.manifest.row_counts as Record<string, number>).events).toBe(0);
});

test("a folder without family files is a problem, whatever else it holds", async () => {
  const source = join(dir, "readme-only");
  mkdirSync(source);
  writeFileSync(join(source, "README.txt"), "curated sources\n");
  const result = await compileSnapshot({ sourceDir: source, outFile, compiledAt: FIXTURE_COMPILED_AT });
  expect(result).toEqual({
    ok: false,
    problems: [`${source}: (root): the source folder holds no family file (projects.jsonl, tokens.jsonl, people.jsonl, funds.jsonl, stocks.jsonl, narratives.jsonl, news.jsonl, events.jsonl, x_accounts.jsonl, trending.jsonl)`],
  });
  expect(readFileSync(outFile).equals(earlier)).toBe(true);
});

test("other files and folders are problems; README*, dotfiles and the output itself are not", async () => {
  await expectProblems("others", (source) => {
    writeFileSync(join(source, "notes.txt"), "");
    mkdirSync(join(source, "archive"));
    writeFileSync(join(source, "README.md"), "");
    writeFileSync(join(source, ".DS_Store"), "");
  }, [
    "archive/: (root): not a family file, so not read: the compiler reads only projects.jsonl, tokens.jsonl, people.jsonl, funds.jsonl, stocks.jsonl, narratives.jsonl, news.jsonl, events.jsonl, x_accounts.jsonl, trending.jsonl (README* and dotfiles are ignored)",
    "notes.txt: (root): not a family file, so not read: the compiler reads only projects.jsonl, tokens.jsonl, people.jsonl, funds.jsonl, stocks.jsonl, narratives.jsonl, news.jsonl, events.jsonl, x_accounts.jsonl, trending.jsonl (README* and dotfiles are ignored)",
  ]);
  const source = join(dir, "ignorables");
  cpSync(fixtureDir("valid"), source, { recursive: true });
  for (const name of ["README", "readme.md", ".cei-notes", ".DS_Store"]) writeFileSync(join(source, name), "");
  const inside = join(source, "snapshot.db");
  for (let i = 0; i < 2; i++) {
    const result = await compileSnapshot({ sourceDir: source, outFile: inside, compiledAt: FIXTURE_COMPILED_AT, xSecret: FIXTURE_X_SECRET });
    expect(result.ok ? [] : result.problems).toEqual([]);
  }
});

test("the closest family file: case ignored, edit distance on the name before its first dot", () => {
  expect(closestFamilyFile("PROJECTS.JSONL")).toBe("projects.jsonl");
  expect(closestFamilyFile("projects.json")).toBe("projects.jsonl");
  expect(closestFamilyFile("projects.jsonl.bak")).toBe("projects.jsonl");
  expect(closestFamilyFile("token.jsonl")).toBe("tokens.jsonl");
  expect(closestFamilyFile("x-accounts.jsonl")).toBe("x_accounts.jsonl");
  expect(closestFamilyFile("peolpe.jsonl")).toBe("people.jsonl");
  expect(closestFamilyFile("notes.txt")).toBeUndefined();
  expect(closestFamilyFile("trend.jsonl")).toBeUndefined();
});
