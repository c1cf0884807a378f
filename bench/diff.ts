// Section: `cei diff` on two snapshots of the large sample, the second compiled from a copy of its
// sources in which every 50th named record (projects, tokens, people, funds, stocks, news, events)
// is renamed (named records are about half of all): about 1% of records, the same ones on every run. Timed against `sqldiff` (Debian's
// sqlite3-tools) on the same pair, alternated, medians of the rounds; peak RSS of the diff process.
// `cei diff --format markdown` runs as a reviewer's CI runs it: the command (bin/cei.js, the
// bundle npm install builds), its output to /dev/null.
import { spawn, spawnSync } from "node:child_process";
import { createReadStream, createWriteStream, existsSync, mkdirSync, readdirSync, rmSync, statSync } from "node:fs";
import { join } from "node:path";
import { createInterface } from "node:readline";
import { once } from "node:events";
import { runCompileChild } from "./_children.ts";
import { OUT_DIR, REPO_DIR, type BenchConfig } from "./_config.ts";
import type { DiffChildReport } from "./_diff-child.ts";
import { percentile } from "./_load.ts";
import { fixed, mib, target, type SectionResult } from "./_report.ts";
import type { Sample } from "./_samples.ts";
import { recordsLabel } from "./compile.ts";

const CHANGE_EVERY = 50;
const RSS_LIMIT_MIB = 300;
const RATIO_LIMIT = 2;

export async function benchDiff(config: BenchConfig, sample: Sample, oldSnapshot: string, log: (line: string) => void): Promise<SectionResult> {
  const label = recordsLabel(sample.lines);
  const newSnapshot = await _changedSnapshot(sample, log);
  const sqldiff = spawnSync("sqldiff", ["--help"], { stdio: "ignore" }).error === undefined;
  if (!sqldiff) log("  sqldiff not found (Debian: apt-get install sqlite3-tools): the ratio is skipped");
  const cei: Array<{ processMs: number; report: DiffChildReport }> = [];
  const markdown: number[] = [];
  const reference: number[] = [];
  for (let round = 0; round < config.compileRounds; round++) {
    cei.push(await _ceiDiff(oldSnapshot, newSnapshot));
    markdown.push(await _ceiMarkdown(oldSnapshot, newSnapshot));
    if (sqldiff) reference.push(await _sqldiff(oldSnapshot, newSnapshot));
  }
  const median = (values: number[]) => percentile([...values].sort((a, b) => a - b), 0.5);
  const processMs = median(cei.map((r) => r.processMs));
  const inProcessMs = median(cei.map((r) => r.report.wallMs));
  const renderMs = median(cei.map((r) => r.report.markdownMs));
  const markdownMs = median(markdown);
  const rssMiB = Math.max(...cei.map((r) => mib(r.report.maxRssBytes)));
  const sqldiffMs = sqldiff ? median(reference) : Number.NaN;
  const summary = cei[0]!.report.summary;
  const changedRecords = Object.values(summary.families).reduce((n, f) => n + f.added + f.removed + f.changed, 0);
  log(`  cei diff ${fixed(processMs / 1000)} s (process), --format markdown ${fixed(markdownMs / 1000)} s (command), sqldiff ${sqldiff ? fixed(sqldiffMs / 1000) + " s" : "absent"}, peak RSS ${fixed(rssMiB)} MiB, ${changedRecords} records changed`);
  const targets = [target(`diff: peak RSS on ${label}`, rssMiB, "max", RSS_LIMIT_MIB, " MiB")];
  if (sqldiff) {
    targets.unshift(
      target(`diff: cei diff ÷ sqldiff on ${label}`, processMs / sqldiffMs, "max", RATIO_LIMIT),
      target(`diff: cei diff --format markdown ÷ sqldiff on ${label}`, markdownMs / sqldiffMs, "max", RATIO_LIMIT),
    );
  }
  return {
    tables: [{
      title: `Diff of two ${label} snapshots (every ${CHANGE_EVERY}th named record renamed): median of ${config.compileRounds} rounds`,
      header: ["tool", "seconds", "peak RSS MiB", "÷ sqldiff"],
      rows: [
        ["cei diff (process: start-up + diff)", fixed(processMs / 1000), fixed(rssMiB), sqldiff ? fixed(processMs / sqldiffMs) : "-"],
        ["cei diff (diffSnapshots call)", fixed(inProcessMs / 1000), "", sqldiff ? fixed(inProcessMs / sqldiffMs) : "-"],
        ["cei diff --format markdown (the command)", fixed(markdownMs / 1000), "", sqldiff ? fixed(markdownMs / sqldiffMs) : "-"],
        [`  of which the Markdown (${fixed(cei[0]!.report.markdownChars / 1000)}k characters)`, fixed(renderMs / 1000), "", ""],
        ["sqldiff (output to /dev/null)", sqldiff ? fixed(sqldiffMs / 1000) : "absent", "", ""],
      ],
    }],
    targets,
    figures: { processMs, inProcessMs, markdownMs, renderMs, sqldiffMs: sqldiff ? sqldiffMs : null, peakRssMiB: rssMiB, changedRecords, summary, rounds: config.compileRounds },
  };
}

async function _ceiDiff(oldFile: string, newFile: string): Promise<{ processMs: number; report: DiffChildReport }> {
  const started = performance.now();
  const child = spawn(process.execPath, ["--import", "tsx", join(REPO_DIR, "bench/_diff-child.ts"), oldFile, newFile], { cwd: REPO_DIR, stdio: ["ignore", "pipe", "inherit"] });
  let output = "";
  child.stdout.setEncoding("utf8").on("data", (chunk: string) => (output += chunk));
  const [code] = (await once(child, "exit")) as [number | null];
  const processMs = performance.now() - started;
  if (code !== 0) throw new Error(`diff child failed (exit ${code}): ${output.slice(-2000)}`);
  return { processMs, report: JSON.parse(output.trim().split("\n").pop()!) as DiffChildReport };
}

/** `cei diff --format markdown` as CI runs it; exit 1 (differences) is expected. */
async function _ceiMarkdown(oldFile: string, newFile: string): Promise<number> {
  const started = performance.now();
  const child = spawn(process.execPath, [join(REPO_DIR, "bin/cei.js"), "diff", "--format", "markdown", oldFile, newFile], { cwd: REPO_DIR, stdio: ["ignore", "ignore", "inherit"] });
  const [code] = (await once(child, "exit")) as [number | null];
  if (code !== 1) throw new Error(`cei diff --format markdown failed (exit ${code})`);
  return performance.now() - started;
}

async function _sqldiff(oldFile: string, newFile: string): Promise<number> {
  const started = performance.now();
  const child = spawn("sqldiff", [oldFile, newFile], { stdio: ["ignore", "ignore", "inherit"] });
  const [code] = (await once(child, "exit")) as [number | null];
  if (code !== 0) throw new Error(`sqldiff failed (exit ${code})`);
  return performance.now() - started;
}

/** The sample's sources with every 50th named record renamed, compiled at the same --as-of; cached like the sample. */
async function _changedSnapshot(sample: Sample, log: (line: string) => void): Promise<string> {
  const dir = `${sample.dir}-changed`;
  const file = join(OUT_DIR, `snapshot-${sample.scale}-changed.db`);
  const sampleTime = statSync(join(sample.dir, ".bench-meta.json")).mtimeMs;
  if (existsSync(file) && statSync(file).mtimeMs >= sampleTime) return file;
  rmSync(dir, { recursive: true, force: true });
  mkdirSync(dir, { recursive: true });
  for (const name of readdirSync(sample.dir).filter((n) => n.endsWith(".jsonl"))) await _renameEveryFiftieth(join(sample.dir, name), join(dir, name));
  const result = await runCompileChild("compile", { ...sample, dir }, file);
  log(`  compiled the changed snapshot (scale ${sample.scale}) in ${fixed(result.wallMs / 1000)} s`);
  rmSync(dir, { recursive: true, force: true });
  return file;
}

async function _renameEveryFiftieth(from: string, to: string): Promise<void> {
  const out = createWriteStream(to);
  let index = 0;
  for await (const line of createInterface({ input: createReadStream(from), crlfDelay: Infinity })) {
    let text = line;
    if (index++ % CHANGE_EVERY === CHANGE_EVERY - 1 && line !== "") {
      const record = JSON.parse(line) as Record<string, unknown>;
      const field = ["name", "full_name", "title"].find((f) => typeof record[f] === "string");
      if (field !== undefined) text = JSON.stringify({ ...record, [field]: `${String(record[field])} II` });
    }
    if (!out.write(text + "\n")) await once(out, "drain");
  }
  out.end();
  await once(out, "finish");
}
