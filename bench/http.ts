// Section 1: HTTP throughput and latency of `cei serve` under the mixed workload, against a raw
// node:http server and a bare h3 app answering a JSON body of the workload's mean size. Sides are
// alternated (raw, h3, cei, raw, h3, cei, ...), each in a fresh child process, and summarised by
// the median over rounds.
import { startBaseline, startCei, type ServerChild } from "./_children.ts";
import type { BenchConfig } from "./_config.ts";
import { median, runLoad, type LoadRequest, type LoadResult } from "./_load.ts";
import { fixed, target, type SectionResult, type Table } from "./_report.ts";
import { buildWorkload, probeWorkload, type WorkloadProbe } from "./_workload.ts";

/**
 * `cei` is the default (meter synchronous=NORMAL: every answered charge survives a process crash);
 * `cei-full` fsyncs every commit (survives power loss too) and shows what that costs; `cei-1op`
 * answers only GET /v1/projects/{slug}, the cheapest operation, so that it measures the request
 * pipeline itself (authentication, rate window, the committed charge, envelope).
 */
export type Side = "raw" | "h3" | "cei" | "cei-full" | "cei-1op";
const SIDES: readonly Side[] = ["raw", "h3", "cei", "cei-full", "cei-1op"];

export interface LoadSummary { requestsPerSecond: number; p50Ms: number; p99Ms: number; serverCpuUsPerRequest: number; runs: LoadResult[] }

/** Starts `cei serve` on the snapshot, runs the mixed workload against it, and stops it. */
export async function loadCei(
  snapshot: string,
  config: BenchConfig,
  meterSync: "full" | "normal" = "normal",
  onlyCheapest = false,
  paced?: { connections: number; requestsPerSecond: number },
): Promise<LoadResult> {
  const server = await startCei(snapshot, { env: { CEI_METER_SYNC: meterSync } });
  try {
    const workload = buildWorkload(snapshot, server.key);
    const cheapest = workload.filter((r) => r.operation === "get_project").slice(0, 1);
    return await _measured("cei", server, onlyCheapest ? cheapest : workload, config, paced);
  } finally {
    await server.stop();
  }
}

export async function benchHttp(config: BenchConfig, snapshot: string, label: string, log: (line: string) => void): Promise<SectionResult> {
  const probe = await _probe(snapshot);
  log(`  mixed workload: ${probe.requests} requests, mean body ${Math.round(probe.meanBodyBytes)} bytes`);
  const runs: Record<Side, LoadResult[]> = { raw: [], h3: [], cei: [], "cei-full": [], "cei-1op": [] };
  for (let round = 1; round <= config.httpRounds; round++) {
    for (const side of SIDES) {
      const result =
        side === "cei" ? await loadCei(snapshot, config)
        : side === "cei-full" ? await loadCei(snapshot, config, "full")
        : side === "cei-1op" ? await loadCei(snapshot, config, "normal", true)
        : await _loadBaseline(side, probe.meanBodyBytes, snapshot, config);
      runs[side].push(result);
      log(`  round ${round} ${side.padEnd(10)}: ${Math.round(result.requestsPerSecond)} req/s, p50 ${fixed(result.p50Ms)} ms, p99 ${fixed(result.p99Ms)} ms`);
    }
  }
  const summary = Object.fromEntries(SIDES.map((side) => [side, summarise(runs[side])])) as Record<Side, LoadSummary>;
  const raw = summary.raw;
  const table: Table = {
    title: `HTTP, mixed workload on the ${label} snapshot (median of ${config.httpRounds} alternated runs, ${config.loadSeconds} s each)`,
    header: ["server", "req/s", "p50 ms", "p99 ms", "req/s ÷ raw", "p99 ÷ raw", "server CPU µs/req"],
    rows: SIDES.map((side) => {
      const s = summary[side];
      return [side, Math.round(s.requestsPerSecond), fixed(s.p50Ms), fixed(s.p99Ms), fixed(s.requestsPerSecond / raw.requestsPerSecond), fixed(s.p99Ms / raw.p99Ms), Math.round(s.serverCpuUsPerRequest)];
    }),
  };
  return {
    tables: [table],
    targets: [
      // The bounds set for a server that authenticates and durably charges every request.
      target("http: cei throughput ÷ raw", summary.cei.requestsPerSecond / raw.requestsPerSecond, "min", 0.45),
      target("http: cei p99 ÷ raw p99", summary.cei.p99Ms / raw.p99Ms, "max", 2.5),
    ],
    figures: { workload: probe, sides: summary },
  };
}

export function summarise(runs: LoadResult[]): LoadSummary {
  return {
    requestsPerSecond: median(runs.map((r) => r.requestsPerSecond)),
    p50Ms: median(runs.map((r) => r.p50Ms)),
    p99Ms: median(runs.map((r) => r.p99Ms)),
    serverCpuUsPerRequest: median(runs.map((r) => r.serverCpuUsPerRequest ?? Number.NaN)),
    runs,
  };
}

async function _probe(snapshot: string): Promise<WorkloadProbe & { requests: number }> {
  const server = await startCei(snapshot);
  try {
    const workload = buildWorkload(snapshot, server.key);
    const probe = await probeWorkload(server.url, workload);
    const missing = Object.entries(probe.statusesByOperation).filter(([, statuses]) => statuses["200"] === undefined);
    if (missing.length > 0) throw new Error(`operations never answered 200 in the workload: ${missing.map(([op]) => op).join(", ")}`);
    return { ...probe, requests: workload.length };
  } finally {
    await server.stop();
  }
}

async function _loadBaseline(kind: "raw" | "h3", bodyBytes: number, snapshot: string, config: BenchConfig): Promise<LoadResult> {
  // The same request list as cei (same bytes sent); the baseline ignores it and answers its fixed body.
  const server: ServerChild = await startBaseline(kind, bodyBytes);
  try {
    return await _measured(kind, server, buildWorkload(snapshot, "baseline-key"), config);
  } finally {
    await server.stop();
  }
}

/** One load run, with the CPU the server used during the measured part (excluding the warm-up). */
async function _measured(
  side: string,
  server: ServerChild,
  workload: readonly LoadRequest[],
  config: BenchConfig,
  paced?: { connections: number; requestsPerSecond: number },
): Promise<LoadResult> {
  if (config.warmupSeconds > 0) await runLoad(server.url, workload, config.warmupSeconds, paced);
  const cpuBefore = server.cpuSeconds();
  const result = await runLoad(server.url, workload, config.loadSeconds, paced);
  result.serverCpuUsPerRequest = ((server.cpuSeconds() - cpuBefore) * 1e6) / result.total;
  _assertHealthy(side, result);
  return result;
}

/** Any status but 200 and 404 (e.g. a 429 from the rate limit) or a socket error voids the run. */
function _assertHealthy(side: string, result: LoadResult): void {
  const unexpected = Object.keys(result.statuses).filter((status) => status !== "200" && status !== "404");
  if (unexpected.length > 0 || result.errors > 0) {
    throw new Error(`${side}: unexpected outcome under load: statuses ${JSON.stringify(result.statuses)}, ${result.errors} errors`);
  }
}
