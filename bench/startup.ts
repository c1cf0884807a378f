// Section 5: start-up, from the spawn of `node bin/cei.js serve` on the large snapshot to the
// first answered request (a real key, a real operation), each trial a fresh process and meter.
// bin/cei.js runs the prebuilt bundle (dist/, built here first by scripts/build.mjs exactly as
// `npm install` builds it); the same command forced onto the TypeScript sources through tsx
// (CEI_ENTRY=tsx, what runs when dist/ is missing or stale) is timed beside it, with two floors
// (an empty node, and node registering tsx).
import { spawnSync } from "node:child_process";
import { join } from "node:path";
import { buildWorkload } from "./_workload.ts";
import { startCei, timeExit } from "./_children.ts";
import { REPO_DIR, type BenchConfig } from "./_config.ts";
import { median } from "./_load.ts";
import { target, type SectionResult } from "./_report.ts";
import type { Sample } from "./_samples.ts";
import { recordsLabel } from "./compile.ts";

interface Trial { nodeMs: number; tsxMs: number; readyMs: number; firstResponseMs: number; tsxPathMs: number }

export async function benchStartup(config: BenchConfig, sample: Sample, snapshot: string, log: (line: string) => void): Promise<SectionResult> {
  // Chosen before any timing starts: the first get_project of the workload (a real project).
  const path = buildWorkload(snapshot, "unused").find((r) => r.operation === "get_project")!.path;
  const entry = buildDist();
  log(`  start-up: bin/cei.js runs ${entry}`);
  const trials: Trial[] = [];
  for (let i = 0; i < config.startupTrials; i++) {
    const nodeMs = await timeExit(["-e", "0"]);
    const tsxMs = await timeExit(["--import", "tsx", "-e", "0"]);
    const cei = await _firstAnswer(snapshot, path);
    const tsxPathMs = (await _firstAnswer(snapshot, path, { CEI_ENTRY: "tsx" })).firstResponseMs;
    trials.push({ nodeMs, tsxMs, ...cei, tsxPathMs });
  }
  const label = recordsLabel(sample.lines);
  const first = trials.map((t) => t.firstResponseMs);
  log(`  start-up on ${label}: ${first.map((ms) => Math.round(ms)).join(", ")} ms to the first answer`);
  const columns: (keyof Trial)[] = ["nodeMs", "tsxMs", "readyMs", "firstResponseMs", "tsxPathMs"];
  return {
    tables: [{
      title: `Start-up on the ${label} snapshot: spawn to listening and to the first answered request (${trials.length} trials, ms; cei runs ${entry})`,
      header: ["trial", "node -e 0", "node + tsx -e 0", "cei listening", "cei first answer", "sources via tsx: first answer"],
      rows: [
        ...trials.map((t, i) => [String(i + 1), ...columns.map((k) => Math.round(t[k]))]),
        ["median", ...columns.map((k) => Math.round(median(trials.map((t) => t[k]))))],
      ],
    }],
    targets: [target(`startup: median spawn → first answer on ${label}`, median(first) / 1000, "max", 0.5, " s")],
    figures: { trials, request: path, entry },
  };
}

async function _firstAnswer(snapshot: string, path: string, env?: Record<string, string>): Promise<{ readyMs: number; firstResponseMs: number }> {
  // startCei creates the meter file (with its key) before it records the spawn time.
  const server = await startCei(snapshot, { env });
  try {
    const response = await fetch(server.url + path, { headers: { authorization: `Bearer ${server.key}` } });
    await response.arrayBuffer();
    const answeredAt = performance.now();
    if (response.status !== 200) throw new Error(`first request answered ${response.status}`);
    return { readyMs: server.readyAt - server.spawnedAt, firstResponseMs: answeredAt - server.spawnedAt };
  } finally {
    await server.stop();
  }
}

/**
 * Builds dist/ as `npm install` does (scripts/build.mjs), then asks bin/cei.js which path it takes
 * (CEI_DEBUG_ENTRY=1): "dist", or "tsx (<why>)" if a source changed meanwhile — reported, so
 * that the figures say what they measured.
 */
export function buildDist(): string {
  const built = spawnSync(process.execPath, [join(REPO_DIR, "scripts/build.mjs")], { cwd: REPO_DIR, encoding: "utf8" });
  if (built.status !== 0) throw new Error(`scripts/build.mjs failed: ${built.stderr}`);
  const probe = spawnSync(process.execPath, [join(REPO_DIR, "bin/cei.js"), "--help"], { cwd: REPO_DIR, encoding: "utf8", env: { ...process.env, CEI_DEBUG_ENTRY: "1" } });
  return /^cei entry: (.*)$/m.exec(probe.stderr)?.[1] ?? "an unknown path";
}
