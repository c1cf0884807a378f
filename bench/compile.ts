// Section 2 (and the compile half of section 3): the sample compiled at three scales, each in a
// child process reporting its own wall time and peak RSS, against the floor (the same files read,
// parsed and inserted by a minimal loop) measured in the same run.
import { execFileSync } from "node:child_process";
import { rmSync } from "node:fs";
import { join } from "node:path";
import type { CompileChildReport } from "./_compile-child.ts";
import { runCompileChild } from "./_children.ts";
import { median } from "./_load.ts";
import { OUT_DIR, type BenchConfig } from "./_config.ts";
import { fixed, mib, target, type SectionResult } from "./_report.ts";
import { snapshotFile, type Sample } from "./_samples.ts";

export interface CompileFigures {
  scale: number;
  records: number;
  /** Medians over the rounds (wall time, peak RSS); the ratio is the median of each round's ratio. */
  compile: CompileChildReport;
  floor: CompileChildReport;
  ratio: number;
  recordsPerSecond: number;
  rounds: Array<{ compileMs: number; floorMs: number; compileRssBytes: number }>;
}

/** The report with the median wall time and the median peak RSS of `reports`. */
function medianReport(reports: readonly CompileChildReport[]): CompileChildReport {
  return { ...reports[0]!, wallMs: median(reports.map((r) => r.wallMs)), maxRssBytes: median(reports.map((r) => r.maxRssBytes)) };
}

export const recordsLabel = (records: number): string =>
  records >= 1e6 ? `${fixed(records / 1e6)}M` : records >= 1e3 ? `${Math.round(records / 1e3)}k` : String(records);

export async function benchCompile(config: BenchConfig, samples: readonly Sample[], log: (line: string) => void): Promise<SectionResult> {
  const figures: CompileFigures[] = [];
  for (const sample of samples) {
    // Compile and floor alternated, so that a spell of CPU steal by the hypervisor (common on
    // these VMs) weighs on both sides or on one round only.
    const compiles: CompileChildReport[] = [];
    const floors: CompileChildReport[] = [];
    for (let round = 1; round <= config.compileRounds; round++) {
      _flushDirtyPages();
      const compile = await runCompileChild("compile", sample, snapshotFile(sample.scale));
      const floorFile = join(OUT_DIR, `floor-${sample.scale}.db`);
      _flushDirtyPages();
      const floor = await runCompileChild("floor", sample, floorFile);
      rmSync(floorFile, { force: true });
      compiles.push(compile);
      floors.push(floor);
      log(`  ${recordsLabel(sample.lines)} records, round ${round}: compile ${fixed(compile.wallMs / 1000)} s, floor ${fixed(floor.wallMs / 1000)} s, peak RSS ${Math.round(mib(compile.maxRssBytes))} MiB (compiler: ${compile.entry})`);
    }
    const compile = medianReport(compiles);
    figures.push({
      scale: sample.scale,
      records: sample.lines,
      compile,
      floor: medianReport(floors),
      ratio: median(compiles.map((c, i) => c.wallMs / floors[i]!.wallMs)),
      recordsPerSecond: sample.lines / (compile.wallMs / 1000),
      rounds: compiles.map((c, i) => ({ compileMs: c.wallMs, floorMs: floors[i]!.wallMs, compileRssBytes: c.maxRssBytes })),
    });
  }
  const [small, medium, large] = figures as [CompileFigures, CompileFigures, CompileFigures];
  /** Growth of compile time over growth of records: 1 is proportional. */
  const growth = (from: CompileFigures, to: CompileFigures) => (to.compile.wallMs / from.compile.wallMs) / (to.records / from.records);
  return {
    tables: [{
      title: `Compile (each in its own child process; floor = same files read, parsed and inserted by a minimal loop; median of ${config.compileRounds} alternated rounds)`,
      header: ["records", "compile s", "records/s", "peak RSS MiB", "output MiB", "floor s", "floor RSS MiB", "compile ÷ floor"],
      rows: figures.map((f) => [
        recordsLabel(f.records), fixed(f.compile.wallMs / 1000), Math.round(f.recordsPerSecond), Math.round(mib(f.compile.maxRssBytes)),
        fixed(mib(f.compile.outBytes)), fixed(f.floor.wallMs / 1000), Math.round(mib(f.floor.maxRssBytes)), fixed(f.ratio),
      ]),
    }],
    targets: [
      target(`compile: time ÷ floor at ${recordsLabel(large.records)}`, large.ratio, "max", 2),
      target(`compile: peak RSS ${recordsLabel(large.records)} ÷ ${recordsLabel(medium.records)}`, large.compile.maxRssBytes / medium.compile.maxRssBytes, "max", 1.5),
      target(`scaling: compile time growth ${recordsLabel(small.records)}→${recordsLabel(medium.records)} ÷ proportional`, growth(small, medium), "max", 1.3),
      target(`scaling: compile time growth ${recordsLabel(medium.records)}→${recordsLabel(large.records)} ÷ proportional`, growth(medium, large), "max", 1.3),
    ],
    figures: { scales: figures },
  };
}

/**
 * Writes every dirty page of the page cache to disk before a measured child starts, so that no
 * child pays for another's writes: a full run generates its 1M sample (660 MB) seconds before the
 * compile rounds, and the kernel writes such pages back 30 s after they were dirtied
 * (vm.dirty_expire_centisecs), on the same two cores, in the middle of whichever child runs then.
 * The compile's own fsync of its output stays inside its time (decision 23).
 */
function _flushDirtyPages(): void {
  execFileSync("sync", { stdio: "ignore" });
}
