// `npm run bench [-- --quick] [-- --only compile,diff,http,operations,scaling,search,relevance,startup,refused,observe,postgres]`: runs the
// sections, prints their tables and the targets, and writes the same figures to bench/results.json.
// Method and latest figures: docs/performance.md.
import { mkdirSync, readdirSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { LOAD_SETTINGS } from "./_load.ts";
import { OUT_DIR, RESULTS_FILE, parseArgs, type Section } from "./_config.ts";
import { fixed, formatTable, formatTargets, machineDescription, type SectionResult } from "./_report.ts";
import { ensureSample, ensureSnapshot, snapshotFile, type Sample } from "./_samples.ts";
import { benchCompile, recordsLabel } from "./compile.ts";
import { benchDiff } from "./diff.ts";
import { benchHttp } from "./http.ts";
import { benchOperations } from "./operations.ts";
import { benchObserve } from "./observe.ts";
import { benchPostgres } from "./postgres.ts";
import { benchRefused } from "./refused.ts";
import { benchScaling } from "./scaling.ts";
import { benchRelevance } from "./relevance.ts";
import { benchSearch } from "./search.ts";
import { benchStartup, buildDist } from "./startup.ts";

const config = parseArgs(process.argv.slice(2));
const log = (line: string) => process.stdout.write(line + "\n");
const started = performance.now();
const startedAt = new Date();
const elapsed = () => `${fixed((performance.now() - started) / 1000)} s`;

mkdirSync(OUT_DIR, { recursive: true });
// Meter files of an interrupted run.
for (const file of readdirSync(OUT_DIR)) if (file.startsWith("meter-")) rmSync(join(OUT_DIR, file), { force: true });

// What an operator runs after `npm install`: the compile and serve sections measure the bundle.
log(`built dist/ as npm install does; bin/cei.js runs ${buildDist()}`);

const wants = (section: Section) => config.only.has(section);
const allScales = wants("compile") || wants("scaling");
const scales = allScales ? config.scales : [config.scales[2]];
log(`cei bench${config.quick ? " --quick" : ""} on Node ${process.versions.node}: ${[...config.only].join(", ")}; scales ${scales.join(", ")} (~1,100 records each)`);
// The figures in docs/performance.md are taken on Node 24 (`npm run bench` brings it through
// scripts/node.sh); a run on another line is not comparable with them, and says so.
if (process.versions.node.split(".")[0] !== "24") log(`note: the documented figures are on Node 24; this run is on ${process.version}`);

// Section "relevance" compiles sets of its own: a run of it alone needs no sample.
const samples: Sample[] = [];
if ([...config.only].some((section) => section !== "relevance")) for (const scale of scales) samples.push(await ensureSample(scale, log));
const large = samples[samples.length - 1]!;
const results: Partial<Record<Section, SectionResult>> = {};

async function runSection(section: Section, run: () => Promise<SectionResult>): Promise<void> {
  if (!wants(section)) return;
  log(`\n[${section}] (${elapsed()})`);
  results[section] = await run();
}

await runSection("compile", () => benchCompile(config, samples, log));
const snapshots: string[] = [];
for (const sample of samples) snapshots.push(wants("compile") ? snapshotFile(sample.scale) : await ensureSnapshot(sample, log));
const largeSnapshot = snapshots[snapshots.length - 1]!;
const largeLabel = samples.length === 0 ? "" : recordsLabel(large.lines);

await runSection("diff", () => benchDiff(config, large, largeSnapshot, log));
await runSection("search", () => benchSearch(config, large, largeSnapshot, log));
await runSection("relevance", () => benchRelevance(config, log));
await runSection("startup", () => benchStartup(config, large, largeSnapshot, log));
await runSection("http", () => benchHttp(config, largeSnapshot, largeLabel, log));
await runSection("operations", () => benchOperations(config, largeSnapshot, largeLabel, log));
await runSection("refused", () => benchRefused(config, largeSnapshot, largeLabel, log));
await runSection("observe", () => benchObserve(config, largeSnapshot, largeLabel, log));
await runSection("postgres", () => benchPostgres(config, largeSnapshot, largeLabel, log));
await runSection("scaling", () => benchScaling(config, samples.map((sample, i) => ({ sample, snapshot: snapshots[i]! })), log));

const ran = Object.values(results);
const targets = ran.flatMap((r) => r.targets);
log("");
for (const table of [...ran.flatMap((r) => r.tables), formatTargets(targets)]) log(formatTable(table) + "\n");
log(`${targets.filter((t) => t.met).length} of ${targets.length} targets met; ${elapsed()} in all`);

writeFileSync(RESULTS_FILE, JSON.stringify({
  startedAt: startedAt.toISOString(),
  durationSeconds: (performance.now() - started) / 1000,
  quick: config.quick,
  sections: Object.keys(results),
  machine: machineDescription(),
  load: { generator: "autocannon (in the parent process, on loopback)", ...LOAD_SETTINGS, seconds: config.loadSeconds, warmupSeconds: config.warmupSeconds },
  samples: samples.map(({ scale, lines, asOf }) => ({ scale, records: lines, asOf: asOf.toISOString() })),
  targets,
  figures: Object.fromEntries(Object.entries(results).map(([section, result]) => [section, result.figures])),
}, null, 2) + "\n");
log(`figures written to ${RESULTS_FILE}`);
