// Bounded problem output: at most maxProblems problems of each kind are listed, and when any was
// left out a summary counts every kind with its first locations; the earlier snapshot at --out
// stays byte for byte. Family files that are not regular files inside the source folder, and
// records nested too deeply, are problems at their file or line, never a crash or a hang.
import { execFileSync } from "node:child_process";
import { cpSync, mkdirSync, readdirSync, readFileSync, symlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { expect, test } from "vitest";
import { compileSnapshot, type CompileOptions } from "../../compiler/compile.ts";
import { families } from "../../compiler/families/index.ts";
import { MAX_NESTING } from "../../compiler/json-line-diagnostics.ts";
import { MAX_KINDS, OTHER_KINDS, problemKind } from "../../compiler/problem-report.ts";
import { FIXTURE_COMPILED_AT, FIXTURE_X_SECRET, fixtureDir } from "../_support/fixtures.ts";
import { testTempDir } from "../_support/temp.ts";

/** A source folder with every family file empty except those given. */
function sourceWith(files: Record<string, string>): string {
  const dir = testTempDir("cei-bounds-");
  const source = join(dir, "source");
  mkdirSync(source);
  for (const { file } of families) writeFileSync(join(source, file), files[file] ?? "");
  return source;
}

/** Compiles over an earlier file at --out, which must stay as it was, with no scratch left. */
async function compileRefused(sourceDir: string, options: Partial<CompileOptions> = {}) {
  const dir = testTempDir("cei-bounds-out-");
  const outFile = join(dir, "snapshot.db");
  writeFileSync(outFile, "EARLIER SNAPSHOT");
  const result = await compileSnapshot({ sourceDir, outFile, compiledAt: FIXTURE_COMPILED_AT, xSecret: FIXTURE_X_SECRET, ...options });
  expect(readFileSync(outFile, "utf8")).toBe("EARLIER SNAPSHOT");
  expect(readdirSync(dir)).toEqual(["snapshot.db"]);
  if (result.ok) throw new Error("the compile succeeded");
  return result;
}

const lines = (n: number, line: (i: number) => string): string => Array.from({ length: n }, (_, i) => line(i + 1) + "\n").join("");

test("problemKind: the family file, the path without indexes, the message without its values", () => {
  expect(problemKind("projects.jsonl", "funding[2].investors[10].id", 'unknown fund "f_missing"')).toBe('projects.jsonl: funding[].investors[].id: unknown fund "…"');
  expect(problemKind("projects.jsonl", "id", 'duplicate id "p1" (first on line 17)')).toBe('projects.jsonl: id: duplicate id "…" (first on line …)');
  expect(problemKind("events.jsonl", "end_date", "end_date 2026-03-04 is before start_date 2026-03-05")).toBe("events.jsonl: end_date: end_date … is before start_date …");
  expect(problemKind("funds.jsonl", "(root)", "invalid UTF-8 at byte 5 of the line (byte 48 of the file): 0xE9 (\"é\" in Latin-1); save the file as UTF-8"))
    .toBe('funds.jsonl: (root): invalid UTF-8 at byte … of the line (byte … of the file): 0x… ("…" in Latin-1); save the file as UTF-8');
  expect(problemKind("notes-17.txt", "(root)", "not a family file, so not read: did you mean notes.jsonl?")).toBe("*: (root): not a family file, so not read: did you mean notes.jsonl?");
  // A character is one value, however it is shown.
  expect(problemKind("tokens.jsonl", "symbol", 'expected a symbol: "a b" has " " (a space) at character 2'))
    .toBe(problemKind("tokens.jsonl", "symbol", 'expected a symbol: "a₮" has "₮" (U+20AE) at character 2'));
  expect(problemKind("tokens.jsonl", "symbol", 'expected a symbol: "a₮" has "₮" (U+20AE) at character 2'))
    .toBe(problemKind("tokens.jsonl", "symbol", 'expected a symbol: "a!" has "!" at character 2'));
  // A list of lines is one value, however long.
  expect(problemKind("x_accounts.jsonl", "handle", 'duplicate X handle "a": 12 records use it, on lines 1, 2, 3, …; keep one'))
    .toBe(problemKind("x_accounts.jsonl", "handle", 'duplicate X handle "b": 2 records use it, on lines 4, 9; keep one'));
});

test("a handle 12 records share: one problem at each record after the first, naming the handle and its first 10 lines, all of one kind", async () => {
  const handles = ["@Uniswap", "uniswap", "UNISWAP", "@uniswap", "Uniswap", "uniSwap", "UniSwap", "@UNISWAP", "uNiswap", "unIswap", "uniSWAP", "uniswaP"];
  const source = sourceWith({ "x_accounts.jsonl": handles.map((handle) => JSON.stringify({ handle })).join("\n") + "\n" });
  const result = await compileRefused(source, { maxProblems: 3 });
  const lines = "1, 2, 3, 4, 5, 6, 7, 8, 9, 10, …";
  expect(result.problems).toEqual([2, 3, 4].map((line) =>
    `x_accounts.jsonl:${line}: handle: duplicate X handle ${JSON.stringify(handles[line - 1])} (case and @ ignored): 12 records use it, on lines ${lines}; keep one, linked to the one entity the account speaks for`));
  expect(result.summary?.kinds.map((k) => k.count)).toEqual([11]);
});

test("45 records of {}: 20 problems of each of the 3 kinds, then every kind counted with its first locations", async () => {
  const source = sourceWith({ "projects.jsonl": lines(45, () => "{}") });
  const result = await compileRefused(source);
  expect(result.problems).toHaveLength(60);
  expect(result.problems.slice(0, 4)).toEqual(["projects.jsonl:1: id: required", "projects.jsonl:1: slug: required", "projects.jsonl:1: name: required", "projects.jsonl:2: id: required"]);
  expect(result.problems.at(-1)).toBe("projects.jsonl:20: name: required");
  const first = ["projects.jsonl:1", "projects.jsonl:2", "projects.jsonl:3"];
  expect(result.summary).toEqual({
    total: 135,
    maxProblems: 20,
    kinds: [
      { kind: "projects.jsonl: id: required", count: 45, first },
      { kind: "projects.jsonl: slug: required", count: 45, first },
      { kind: "projects.jsonl: name: required", count: 45, first },
    ],
  });
  const none = await compileRefused(source, { maxProblems: 0 });
  expect(none.problems).toEqual([]);
  expect(none.summary?.kinds.map((k) => [k.count, k.first])).toEqual([[45, first], [45, first], [45, first]]);
  const all = await compileRefused(source, { maxProblems: 45 });
  expect(all.problems).toHaveLength(135);
  expect(all.summary).toBeUndefined();
});

test("the cross-record checks' problems are bounded the same way, beside the validation problems", async () => {
  const records = lines(30, (i) => JSON.stringify({ id: "p1", slug: `p-${i}`, name: `P ${i}` }));
  const source = sourceWith({ "projects.jsonl": records + "{}\n" });
  const result = await compileRefused(source, { maxProblems: 5 });
  expect(result.problems).toEqual([
    'projects.jsonl:2: id: duplicate id "p1" (first on line 1)',
    'projects.jsonl:3: id: duplicate id "p1" (first on line 1)',
    'projects.jsonl:4: id: duplicate id "p1" (first on line 1)',
    'projects.jsonl:5: id: duplicate id "p1" (first on line 1)',
    'projects.jsonl:6: id: duplicate id "p1" (first on line 1)',
    "projects.jsonl:31: id: required",
    "projects.jsonl:31: slug: required",
    "projects.jsonl:31: name: required",
  ]);
  expect(result.summary?.kinds).toEqual([
    { kind: 'projects.jsonl: id: duplicate id "…" (first on line …)', count: 29, first: ["projects.jsonl:2", "projects.jsonl:3", "projects.jsonl:4"] },
    { kind: "projects.jsonl: id: required", count: 1, first: ["projects.jsonl:31"] },
    { kind: "projects.jsonl: slug: required", count: 1, first: ["projects.jsonl:31"] },
    { kind: "projects.jsonl: name: required", count: 1, first: ["projects.jsonl:31"] },
  ]);
});

test(`kinds a file makes up are counted one by one up to ${MAX_KINDS}, the rest together`, async () => {
  // Each line repeats a key inside a field of its own name: a kind of its own (path `k<n>`).
  const source = sourceWith({ "projects.jsonl": lines(250, (i) => `{"k${i}":{"a":1,"a":2}}`) });
  const result = await compileRefused(source);
  const summary = result.summary!;
  expect(summary.total).toBe(250 * 5);
  expect(summary.kinds).toHaveLength(MAX_KINDS + 1);
  expect(summary.kinds.slice(0, 5).map((k) => [k.kind, k.count])).toEqual([
    ['projects.jsonl: k1: duplicate key "…": a record may name each field once (JSON would keep only the last value)', 1],
    ["projects.jsonl: id: required", 250],
    ["projects.jsonl: slug: required", 250],
    ["projects.jsonl: name: required", 250],
    ['projects.jsonl: (root): unknown field "…"', 250],
  ]);
  // 4 kinds every line has, and one new one per line: the 200th is line 196's.
  expect(summary.kinds.at(-1)).toEqual({ kind: OTHER_KINDS, count: 250 - 196, first: [] });
  expect(result.problems).toHaveLength(196 + 4 * 20);
});

test("stray files are bounded too, beside a folder that otherwise compiles", async () => {
  const source = join(testTempDir("cei-bounds-stray-"), "source");
  cpSync(fixtureDir("valid"), source, { recursive: true });
  for (let i = 1; i <= 50; i++) writeFileSync(join(source, `stray-${String(i).padStart(2, "0")}.txt`), "");
  const result = await compileRefused(source);
  expect(result.problems).toHaveLength(20);
  expect(result.summary?.total).toBe(50);
  expect(result.summary?.kinds).toEqual([expect.objectContaining({ kind: expect.stringMatching(/^\*: \(root\): not a family file, so not read: /), count: 50 })]);
});

test("a family file that is a link out of the folder, a FIFO, a device or a folder is a problem that quotes nothing of it", async () => {
  const dir = testTempDir("cei-bounds-files-");
  const secret = join(dir, "outside.jsonl");
  writeFileSync(secret, "TOP SECRET not JSON\n");
  const source = join(dir, "source");
  cpSync(fixtureDir("valid"), source, { recursive: true });
  const replace = (file: string, make: (path: string) => void) => {
    execFileSync("rm", ["-rf", join(source, file)]);
    make(join(source, file));
  };
  replace("projects.jsonl", (path) => symlinkSync(secret, path));
  replace("tokens.jsonl", (path) => execFileSync("mkfifo", [path]));
  replace("people.jsonl", (path) => symlinkSync("/dev/zero", path));
  replace("funds.jsonl", (path) => mkdirSync(path));
  replace("stocks.jsonl", (path) => symlinkSync(join(source, "no-such-file"), path));
  const result = await compileRefused(source);
  // Every record that referred to a project, token, person or fund now names a missing one: only the file problems matter here.
  expect(result.problems.filter((p) => !/^\w+\.jsonl:\d+:/.test(p))).toEqual([
    "funds.jsonl: (root): a directory, not a regular file: not read; a family's records must be in a regular file",
    "people.jsonl: (root): a symbolic link leading out of the source folder: not read; copy the file into the folder",
    "projects.jsonl: (root): a symbolic link leading out of the source folder: not read; copy the file into the folder",
    "stocks.jsonl: (root): a symbolic link to nothing (its target does not exist): not read",
    "tokens.jsonl: (root): a FIFO (named pipe), not a regular file: not read; a family's records must be in a regular file",
  ]);
  expect(result.problems.join("\n")).not.toContain("SECRET");
}, 30_000);

test("a family file linked to a file inside the folder is read like the file itself", async () => {
  const source = join(testTempDir("cei-bounds-inside-"), "source");
  cpSync(fixtureDir("valid"), source, { recursive: true });
  cpSync(join(source, "projects.jsonl"), join(source, ".projects-2026-03.jsonl"));
  execFileSync("rm", [join(source, "projects.jsonl")]);
  symlinkSync(".projects-2026-03.jsonl", join(source, "projects.jsonl"));
  const outFile = join(source, "..", "snapshot.db");
  const linked = await compileSnapshot({ sourceDir: source, outFile, compiledAt: FIXTURE_COMPILED_AT, xSecret: FIXTURE_X_SECRET });
  const plain = await compileSnapshot({ sourceDir: fixtureDir("valid"), outFile: join(source, "..", "plain.db"), compiledAt: FIXTURE_COMPILED_AT, xSecret: FIXTURE_X_SECRET });
  expect(linked.ok && plain.ok && linked.manifest.content_hash === plain.manifest.content_hash).toBe(true);
});

test(`a record nested more than ${MAX_NESTING} levels deep is a problem at its line; ${MAX_NESTING} levels are read`, async () => {
  const deep = 200_000;
  const source = sourceWith({
    "projects.jsonl": [
      "[".repeat(MAX_NESTING) + "]".repeat(MAX_NESTING),
      "[".repeat(MAX_NESTING + 1) + "]".repeat(MAX_NESTING + 1),
      "[".repeat(deep) + "]".repeat(deep),
      '{"a":'.repeat(deep) + "1" + "}".repeat(deep),
      '{"id": "p_deep", "x": "' + "[".repeat(500) + '"}',
      "[".repeat(deep),
    ].join("\n") + "\n",
  });
  const result = await compileRefused(source);
  const tooDeep = `objects and arrays nested more than ${MAX_NESTING} levels deep: not read (a record needs at most a few)`;
  expect(result.problems).toEqual([
    "projects.jsonl:1: (root): expected an object, not an array of 1 item",
    `projects.jsonl:2: (root): ${tooDeep}`,
    `projects.jsonl:3: (root): ${tooDeep}`,
    `projects.jsonl:4: (root): ${tooDeep}`,
    "projects.jsonl:5: slug: required",
    "projects.jsonl:5: name: required",
    'projects.jsonl:5: (root): unknown field "x"',
    `projects.jsonl:6: (root): ${tooDeep}`,
  ]);
});
