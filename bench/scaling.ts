// Section 3, serving half: the mixed workload against `cei serve` on the snapshots of the three
// scales, alternated (small, medium, large, small, ...), each in a fresh child process, offered at
// a fixed rate below capacity (PACED_SETTINGS) so that latency is the time to serve a request, not
// queueing behind a saturated core (section 1 measures saturation). The compile half is in compile.ts.
import type { BenchConfig } from "./_config.ts";
import { PACED_SETTINGS, type LoadResult } from "./_load.ts";
import { fixed, target, type SectionResult } from "./_report.ts";
import type { Sample } from "./_samples.ts";
import { recordsLabel } from "./compile.ts";
import { loadCei, summarise } from "./http.ts";

export async function benchScaling(
  config: BenchConfig,
  served: ReadonlyArray<{ sample: Sample; snapshot: string }>,
  log: (line: string) => void,
): Promise<SectionResult> {
  const runs: LoadResult[][] = served.map(() => []);
  for (let round = 1; round <= config.scalingRounds; round++) {
    for (const [i, { sample, snapshot }] of served.entries()) {
      const result = await loadCei(snapshot, config, "normal", false, PACED_SETTINGS);
      runs[i]!.push(result);
      log(`  round ${round} ${recordsLabel(sample.lines)}: ${Math.round(result.requestsPerSecond)} req/s, p50 ${fixed(result.p50Ms)} ms, p99 ${fixed(result.p99Ms)} ms`);
    }
  }
  const summaries = runs.map(summarise);
  const first = summaries[0]!;
  const last = summaries[summaries.length - 1]!;
  const labels = served.map(({ sample }) => recordsLabel(sample.lines));
  return {
    tables: [{
      title: `Serving at three scales, mixed workload offered at ${PACED_SETTINGS.requestsPerSecond} req/s over ${PACED_SETTINGS.connections} connections (median of ${config.scalingRounds} alternated runs, ${config.loadSeconds} s each)`,
      header: ["records", "req/s", "p50 ms", "p99 ms", `p99 ÷ ${labels[0]}`, "server CPU µs/req"],
      rows: summaries.map((s, i) => [
        labels[i]!, Math.round(s.requestsPerSecond), fixed(s.p50Ms), fixed(s.p99Ms), fixed(s.p99Ms / first.p99Ms), Math.round(s.serverCpuUsPerRequest),
      ]),
    }],
    targets: [target(`scaling: p99 ${labels[labels.length - 1]} ÷ p99 ${labels[0]}`, last.p99Ms / first.p99Ms, "max", 1.3)],
    figures: { scales: served.map(({ sample }, i) => ({ scale: sample.scale, records: sample.lines, ...summaries[i]! })) },
  };
}
