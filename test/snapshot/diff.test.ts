// `cei diff` as a reviewer runs it, on snapshots compiled by the real compiler from fixtures/valid
// and fixtures/valid-changed (one project renamed, one added, one deleted, a feature's status
// changed, a fund's score raised so that the ranking moves, another re-scored so that the
// ranking's as_of moves, ETH's market observation changed, USDC given one more contract). Outputs
// are compared with the golden files under test/snapshot/golden/, with content hashes and the
// format version masked (they change with the compiler, not with the data). After an intended
// change to the output or to the compiled fixtures, rewrite them with:
// CEI_UPDATE_GOLDEN=1 npx vitest run test/snapshot/diff.test.ts
import { execFile } from "node:child_process";
import { copyFileSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import Database from "better-sqlite3";
import { afterAll, beforeAll, expect, test } from "vitest";
import { readManifest } from "../../compiler/manifest.ts";
import { diffSnapshots, type SnapshotDiff } from "../../snapshot/diff.ts";
import { formatDiff, summariseDiff } from "../../snapshot/text.ts";
import { compileFixture } from "../_support/fixtures.ts";

const REPO = fileURLToPath(new URL("../../", import.meta.url));
const GOLDEN = fileURLToPath(new URL("./golden/", import.meta.url));
const run = promisify(execFile);
let dir = "";
const compiledDirs: string[] = [];

/** Runs `cei diff` in `dir`, so that the file names it prints are the short relative ones. */
const cei = (args: string[], env: Record<string, string> = {}) =>
  run(process.execPath, [join(REPO, "bin/cei.js"), "diff", ...args], { cwd: dir, env: { ...process.env, ...env } }).then(
    (r) => ({ code: 0, stdout: r.stdout, stderr: r.stderr }),
    (e: { code: number; stdout: string; stderr: string }) => ({ code: e.code, stdout: e.stdout, stderr: e.stderr }),
  );

/** Masks what changes with the compiler rather than with the data: content hashes (whole or short), the format version. */
const mask = (text: string) =>
  text.replace(/\b[0-9a-f]{64}\b/g, "<content hash>").replace(/`[0-9a-f]{12}`/g, "`<content hash>`").replace(/"format_version": \d+/g, '"format_version": "<format version>"');

function expectGolden(name: string, actual: string): void {
  const file = join(GOLDEN, name);
  if (process.env.CEI_UPDATE_GOLDEN === "1") writeFileSync(file, actual);
  expect(actual).toBe(readFileSync(file, "utf8"));
}

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), "cei-diff-"));
  for (const [fixture, name] of [["valid", "old.db"], ["valid-changed", "new.db"]] as const) {
    const compiled = await compileFixture(fixture);
    compiledDirs.push(join(compiled, ".."));
    copyFileSync(compiled, join(dir, name));
  }
  copyFileSync(join(dir, "new.db"), join(dir, "future.db"));
  const future = new Database(join(dir, "future.db"));
  future.prepare("UPDATE manifest SET value = '999' WHERE key = 'format_version'").run();
  future.close();
  writeFileSync(join(dir, "notes.txt"), "not a snapshot\n");
});

afterAll(() => {
  for (const folder of [dir, ...compiledDirs]) if (folder !== "") rmSync(folder, { recursive: true, force: true });
});

test("text: summary first, then every change grouped; exit 1; no colour when stdout is not a TTY", async () => {
  const result = await cei(["old.db", "new.db"]);
  expect(result.code).toBe(1);
  expect(result.stderr).toBe("");
  expect(result.stdout).not.toContain("\x1b[");
  expectGolden("valid-to-changed.txt", mask(result.stdout));
});

test("--json: the documented shape, values as their API type; --summary: the counts only", async () => {
  const [json, summary, jsonSummary] = await Promise.all([cei(["--json", "old.db", "new.db"]), cei(["--summary", "old.db", "new.db"]), cei(["--format", "json", "--summary", "old.db", "new.db"])]);
  expect([json.code, summary.code, jsonSummary.code]).toEqual([1, 1, 1]);
  expectGolden("valid-to-changed.json", mask(json.stdout));
  expectGolden("valid-to-changed.summary.txt", summary.stdout);
  const whole = JSON.parse(json.stdout) as SnapshotDiff;
  expect(JSON.parse(jsonSummary.stdout)).toEqual({ old: whole.old, new: whole.new, identical: false, summary: whole.summary, warnings: [] });
  // A boolean is a boolean, as the API serves it (SQLite stores 0/1).
  expect(whole.families.people?.changed[0]?.lists.roles?.changed[0]?.fields.is_current).toEqual({ old: true, new: false });
  expect(whole.old.reference_time).toBe("2026-03-01T12:00:00.000Z");
});

test("--format markdown: header, summary table, significant changes, the rest folded; a row cap with '… N more'", async () => {
  const [markdown, capped] = await Promise.all([cei(["--format", "markdown", "old.db", "new.db"]), cei(["--format", "markdown", "--max-rows", "4", "old.db", "new.db"])]);
  expect([markdown.code, capped.code]).toEqual([1, 1]);
  expectGolden("valid-to-changed.md", mask(markdown.stdout));
  expectGolden("valid-to-changed.max-rows-4.md", mask(capped.stdout));
  const changeRows = (text: string) => text.split("\n").filter((line) => /^\| [-+~↑↓] \|/.test(line)).length;
  expect(changeRows(capped.stdout)).toBe(4);
  const more = [...capped.stdout.matchAll(/… (?:\| )?(\d+) more/g)].reduce((n, m) => n + Number(m[1]), 0);
  expect(changeRows(markdown.stdout)).toBe(4 + more);
  // docs/diff.md shows this very document, quoted.
  const quoted = mask(markdown.stdout).trimEnd().split("\n").map((line) => (line === "" ? ">" : `> ${line}`)).join("\n");
  expect(mask(readFileSync(join(REPO, "docs/diff.md"), "utf8"))).toContain(quoted);
});

test("the same snapshot twice: no differences, exit 0", async () => {
  const result = await cei(["old.db", "old.db"]);
  expect(result).toEqual({ code: 0, stdout: "cei diff old.db old.db\nno differences\n", stderr: "" });
});

test("a usage error is trouble too: exit 2, as diff(1)", async () => {
  const results = await Promise.all([["--format", "html"], ["--fail-on", "removed,typo"], ["--json", "--format", "markdown"]].map((args) => cei([...args, "old.db", "new.db"])));
  expect(results.map((r) => r.code)).toEqual([2, 2, 2]);
  expect(results[1]!.stderr).toContain("unknown: typo");
  expect(results.every((r) => r.stdout === "")).toBe(true);
});

test("trouble exits 2 with our own sentence: missing file, not a snapshot, different format versions", async () => {
  const [missing, notSnapshot, versions] = await Promise.all([cei(["old.db", "gone.db"]), cei(["notes.txt", "new.db"]), cei(["old.db", "future.db"])]);
  expect(missing).toEqual({ code: 2, stdout: "", stderr: "cei diff: gone.db: no such file\n" });
  expect(notSnapshot).toEqual({ code: 2, stdout: "", stderr: "cei diff: notes.txt: not a cei snapshot (not an SQLite database)\n" });
  const version = String(readManifest(join(dir, "old.db")).format_version);
  expect(versions).toEqual({
    code: 2,
    stdout: "",
    stderr: `cei diff: cannot compare snapshots of different format versions: old.db is format ${version}, future.db is format 999\n`,
  });
});

/** `cei diff` with stdout on a pseudo-terminal (util-linux `script`), as a reviewer at a terminal runs it; exit 1 expected. */
async function ceiOnTty(args: string[], env: NodeJS.ProcessEnv): Promise<{ code: number; stdout: string }> {
  const command = [process.execPath, join(REPO, "bin/cei.js"), "diff", ...args].join(" ");
  const failed = (await run("script", ["-qec", command, "/dev/null"], { cwd: dir, env }).then(() => ({ code: 0, stdout: "" }), (e: { code: number; stdout: string }) => e));
  return { code: failed.code, stdout: failed.stdout.replaceAll("\r\n", "\n") };
}

test("colour on a terminal, unless NO_COLOR is set", async () => {
  const { NO_COLOR: _ignored, ...withoutNoColor } = process.env;
  const [tty, noColor] = await Promise.all([
    ceiOnTty(["--summary", "old.db", "new.db"], withoutNoColor),
    ceiOnTty(["--summary", "old.db", "new.db"], { ...withoutNoColor, NO_COLOR: "1" }),
  ]);
  expect([tty.code, noColor.code]).toEqual([1, 1]);
  expect(tty.stdout).toContain("\x1b[32m1 added\x1b[0m");
  expect(tty.stdout.replace(/\x1b\[\d+m/g, "")).toBe(noColor.stdout);
  expect(noColor.stdout).toBe(readFileSync(join(GOLDEN, "valid-to-changed.summary.txt"), "utf8"));
});

test("the library: colour only when asked; the summary is the text's first part", () => {
  const diff = diffSnapshots(join(dir, "old.db"), join(dir, "new.db"));
  const coloured = formatDiff(diff, { colour: true });
  expect(coloured).toContain("\x1b[32m  + proj_foxtrot \"Foxtrot Finance\"\x1b[0m");
  expect(coloured.replace(/\x1b\[\d+m/g, "")).toBe(formatDiff(diff));
  expect(formatDiff(diff).split("\n").slice(1).join("\n").startsWith(summariseDiff(diff))).toBe(true);
  expect(diff.snapshots.fund_rankings?.moved[0]).toEqual({ id: "fund_eridanus", old: 5, new: 1, by: 4, displaced: true });
  // The four it passed moved down one place each without leaving their order.
  expect(diff.snapshots.fund_rankings?.moved.filter((m) => m.displaced).map((m) => m.id)).toEqual(["fund_eridanus"]);
});
