// `cei compile` on a million bad records, as a user runs it: bounded output and bounded memory.
// And every command whose reader goes away early (`| head -1`) exits quietly with its status.
import { execFile, spawn } from "node:child_process";
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { promisify } from "node:util";
import { expect, test } from "vitest";
import { compileSnapshot } from "../../compiler/compile.ts";
import { families } from "../../compiler/families/index.ts";
import { FIXTURE_COMPILED_AT, FIXTURE_X_SECRET, fixtureDir } from "../_support/fixtures.ts";
import { testTempDir } from "../_support/temp.ts";

const run = promisify(execFile);
const env = { ...process.env, CEI_X_SECRET: FIXTURE_X_SECRET };

/** A source folder whose projects.jsonl holds `records` lines of `{}`, the other family files empty. */
function sourceOfEmptyRecords(dir: string, records: number): string {
  const source = join(dir, "source");
  mkdirSync(source);
  for (const { file } of families) writeFileSync(join(source, file), "");
  writeFileSync(join(source, "projects.jsonl"), "{}\n".repeat(records));
  return source;
}

/** Runs node with `args`: its exit code and stderr, whether it failed or not. */
const node = (args: string[]) => run(process.execPath, args, { env, maxBuffer: 1 << 20 })
  .then((r) => ({ code: 0, stderr: r.stderr }), (e: { code: number; stderr: string }) => ({ code: e.code, stderr: e.stderr }));

/**
 * The child's peak resident set, written when it exits: loaded before the command with --import,
 * so that the measure is of the cei process itself (worker threads included), with no wrapper.
 */
function peakRssProbe(dir: string): { module: string; report: string } {
  const module = join(dir, "peak-rss.mjs");
  const report = join(dir, "peak-rss.txt");
  writeFileSync(module, `import { writeFileSync } from "node:fs";\nprocess.on("exit", () => writeFileSync(${JSON.stringify(report)}, String(process.resourceUsage().maxRSS)));\n`);
  return { module, report };
}

// Measured on a 2-core VM: before, 3,000,000 problems gave 111 MB on stderr and a peak of 1.0 GB;
// now about 2.5 KB and 0.26-0.37 GB (V8 collects lazily; the old space never holds the problems:
// the same compile passes with --max-old-space-size=96, which the old one could not).
const MAX_STDERR_BYTES = 16 * 1024;
const MAX_PEAK_RSS_KB = 640 * 1024;

test("a million lines of {} give 3,000,000 problems, 20 listed of each kind, in bounded output and memory", async () => {
  const dir = testTempDir("cei-million-");
  const source = sourceOfEmptyRecords(dir, 1_000_000);
  const out = join(dir, "snapshot.db");
  writeFileSync(out, "EARLIER SNAPSHOT");
  const probe = peakRssProbe(dir);
  const started = Date.now();
  const result = await node(["--max-old-space-size=96", "--import", probe.module, "bin/cei.js", "compile", "--source", source, "--out", out]);
  const seconds = (Date.now() - started) / 1000;
  const peakKb = Number(readFileSync(probe.report, "utf8"));
  console.log(`1,000,000 lines of {}: ${seconds.toFixed(1)} s, stderr ${Buffer.byteLength(result.stderr)} bytes, peak RSS ${Math.round(peakKb / 1024)} MiB`);
  expect(result.code).toBe(1);
  expect(readFileSync(out, "utf8")).toBe("EARLIER SNAPSHOT");
  expect(Buffer.byteLength(result.stderr)).toBeLessThan(MAX_STDERR_BYTES);
  expect(peakKb).toBeLessThan(MAX_PEAK_RSS_KB);
  const lines = result.stderr.trimEnd().split("\n");
  expect(lines.filter((l) => l.startsWith("projects.jsonl:"))).toHaveLength(60);
  expect(lines.slice(-5)).toEqual([
    "problems by kind (at most 20 of each listed above; --max-problems <n> lists more):",
    "  1000000  projects.jsonl: id: required  (first: projects.jsonl:1, projects.jsonl:2, projects.jsonl:3)",
    "  1000000  projects.jsonl: slug: required  (first: projects.jsonl:1, projects.jsonl:2, projects.jsonl:3)",
    "  1000000  projects.jsonl: name: required  (first: projects.jsonl:1, projects.jsonl:2, projects.jsonl:3)",
    `cei compile: 3000000 problem(s) of 3 kind(s), 60 listed; ${out} was not written`,
  ]);
}, 180_000);

test("--max-problems lists that many of each kind; 0 the summary alone; anything else is refused", async () => {
  const dir = testTempDir("cei-max-problems-");
  const source = sourceOfEmptyRecords(dir, 5);
  const compile = (...extra: string[]) => node(["bin/cei.js", "compile", "--source", source, "--out", join(dir, "out.db"), ...extra]);
  const two = await compile("--max-problems", "2");
  expect(two.code).toBe(1);
  expect(two.stderr.split("\n").filter((l) => l.startsWith("projects.jsonl:"))).toEqual([
    "projects.jsonl:1: id: required", "projects.jsonl:1: slug: required", "projects.jsonl:1: name: required",
    "projects.jsonl:2: id: required", "projects.jsonl:2: slug: required", "projects.jsonl:2: name: required",
  ]);
  const none = await compile("--max-problems", "0");
  expect(none.stderr.split("\n").filter((l) => l.startsWith("projects.jsonl:"))).toEqual([]);
  expect(none.stderr).toContain("  5  projects.jsonl: id: required  (first: projects.jsonl:1, projects.jsonl:2, projects.jsonl:3)\n");
  expect(none.stderr).toContain("cei compile: 15 problem(s) of 3 kind(s), 0 listed;");
  const all = await compile("--max-problems", "5");
  expect(all.stderr).not.toContain("problems by kind");
  expect(all.stderr).toContain("cei compile: 15 problem(s);");
  for (const bad of ["-1", "two", "1.5"]) expect((await compile("--max-problems", bad)).stderr).toContain("expected a whole number >= 0");
}, 60_000);

/** Runs cei with its stdout's reader gone before it starts: every write it makes fails with EPIPE. */
function ceiWithStdoutClosed(args: string[]): Promise<{ code: number | null; stderr: string }> {
  const child = spawn(process.execPath, ["bin/cei.js", ...args], { env, stdio: ["ignore", "pipe", "pipe"] });
  child.stdout.destroy();
  let stderr = "";
  child.stderr.setEncoding("utf8").on("data", (chunk: string) => (stderr += chunk));
  return new Promise((resolve, reject) => {
    child.on("error", reject);
    child.on("close", (code) => resolve({ code, stderr }));
  });
}

test("every command exits quietly with its own status when its reader goes away (EPIPE)", async () => {
  const dir = testTempDir("cei-epipe-");
  const compiled = async (name: string) => {
    const outFile = join(dir, `${name}.db`);
    const result = await compileSnapshot({ sourceDir: fixtureDir(name), outFile, compiledAt: FIXTURE_COMPILED_AT, xSecret: FIXTURE_X_SECRET });
    if (!result.ok) throw new Error(result.problems.join("\n"));
    return outFile;
  };
  const [before, after] = [await compiled("valid"), await compiled("valid-changed")];
  const cases: Array<[string[], number]> = [
    [["compile", "--source", fixtureDir("valid"), "--out", join(dir, "again.db"), "--as-of", "2026-03-01T12:00:00Z"], 0],
    [["diff", before, after], 1],
    [["diff", before, before], 0],
    [["inspect", before], 0],
    [["openapi"], 0],
  ];
  for (const [args, code] of cases) expect(await ceiWithStdoutClosed(args), args.join(" ")).toEqual({ code, stderr: "" });
  // And as a user writes it: the reader takes one line of a 220 KB document, then goes.
  const piped = await run("bash", ["-c", 'set -o pipefail; "$0" bin/cei.js openapi 2>"$1" | head -1', process.execPath, join(dir, "stderr.txt")], { env });
  expect(piped.stdout).toBe("{\n");
  expect(readFileSync(join(dir, "stderr.txt"), "utf8")).toBe("");
}, 120_000);
