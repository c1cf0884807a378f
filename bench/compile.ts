// Section 2 (and the compile half of section 3): the sample compiled at three scales, each in a
// child process reporting its own wall time and peak RSS, against the floor (the same files read,
// parsed and inserted by a minimal loop) measured in the same run.
import { rmSync } from "node:fs";
import { join } from "node:path";
import type { CompileChildReport } from "./_compile-child.ts";
import { runCompileChild } from "./_children.ts";
import { OUT_DIR, type BenchConfig } from "./_config.ts";
import { fixed, mib, target, type SectionResult } from "./_report.ts";
import { snapshotFile, type Sample } from "./_samples.ts";

export interface CompileFigures {
  scale: number;
  records: number;
  compile: CompileChildReport;
  floor: CompileChildReport;
  recordsPerSecond: number;
}

export const recordsLabel = (records: number): string =>
  records >= 1e6 ? `${fixed(records / 1e6)}M` : records >= 1e3 ? `${Math.round(records / 1e3)}k` : String(records);

export async function benchCompile(_config: BenchConfig, samples: readonly Sample[], log: (line: string) => void): Promise<SectionResult> {
  const figures: CompileFigures[] = [];
  for (const sample of samples) {
    const compile = await runCompileChild("compile", sample, snapshotFile(sample.scale));
    const floorFile = join(OUT_DIR, `floor-${sample.scale}.db`);
    const floor = await runCompileChild("floor", sample, floorFile);
    rmSync(floorFile, { force: true });
    const recordsPerSecond = sample.lines / (compile.wallMs / 1000);
    figures.push({ scale: sample.scale, records: sample.lines, compile, floor, recordsPerSecond });
    log(`  ${recordsLabel(sample.lines)} records: compile ${fixed(compile.wallMs / 1000)} s, floor ${fixed(floor.wallMs / 1000)} s, peak RSS ${Math.round(mib(compile.maxRssBytes))} MiB`);
  }
  const [small, medium, large] = figures as [CompileFigures, CompileFigures, CompileFigures];
  /** Growth of compile time over growth of records: 1 is proportional. */
  const growth = (from: CompileFigures, to: CompileFigures) => (to.compile.wallMs / from.compile.wallMs) / (to.records / from.records);
  return {
    tables: [{
      title: "Compile (each in its own child process; floor = same files read, parsed and inserted by a minimal loop)",
      header: ["records", "compile s", "records/s", "peak RSS MiB", "output MiB", "floor s", "floor RSS MiB", "compile ÷ floor"],
      rows: figures.map((f) => [
        recordsLabel(f.records), fixed(f.compile.wallMs / 1000), Math.round(f.recordsPerSecond), Math.round(mib(f.compile.maxRssBytes)),
        fixed(mib(f.compile.outBytes)), fixed(f.floor.wallMs / 1000), Math.round(mib(f.floor.maxRssBytes)), fixed(f.compile.wallMs / f.floor.wallMs),
      ]),
    }],
    targets: [
      target(`compile: time ÷ floor at ${recordsLabel(large.records)}`, large.compile.wallMs / large.floor.wallMs, "max", 2),
      target(`compile: peak RSS ${recordsLabel(large.records)} ÷ ${recordsLabel(medium.records)}`, large.compile.maxRssBytes / medium.compile.maxRssBytes, "max", 1.5),
      target(`scaling: compile time growth ${recordsLabel(small.records)}→${recordsLabel(medium.records)} ÷ proportional`, growth(small, medium), "max", 1.3),
      target(`scaling: compile time growth ${recordsLabel(medium.records)}→${recordsLabel(large.records)} ÷ proportional`, growth(medium, large), "max", 1.3),
    ],
    figures: { scales: figures },
  };
}
