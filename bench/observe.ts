// Section "observe": what watching the service costs (logs and metrics). Server CPU per request of
// `cei serve` answering the cheapest operation (GET /v1/projects/{slug}, so that the fixed cost
// per request is the largest share) with the request log off (--log-level warn) and on (info, one
// JSON line per request, read by this process through a pipe as a collector would), with the
// metrics listener added, and on listhen's listener instead of node:http (log off, as the node
// side it is compared with). Sides alternate in an order rotated every round, each in a fresh
// child, medians over rounds. Then the log's own cost in one process, where the machine's other
// load falls on every variant alike.
import { startCei } from "./_children.ts";
import type { BenchConfig } from "./_config.ts";
import { median, rotated, runLoad, type LoadResult } from "./_load.ts";
import { fixed, target, type SectionResult, type Table } from "./_report.ts";
import { buildWorkload } from "./_workload.ts";
import { logCostInProcess } from "./_observe-inprocess.ts";

const SIDES = {
  "node, log off": ["--listener", "node", "--log-level", "warn"],
  "node, log on": ["--listener", "node", "--log-level", "info"],
  "node, log on + metrics": ["--listener", "node", "--log-level", "info", "--metrics-port", "0"],
  "listhen, log off": ["--listener", "listhen", "--log-level", "warn"],
} as const satisfies Record<string, readonly string[]>;
type Side = keyof typeof SIDES;

async function _run(snapshot: string, args: readonly string[], config: BenchConfig): Promise<LoadResult> {
  const server = await startCei(snapshot, { args });
  try {
    const cheapest = buildWorkload(snapshot, server.key).filter((request) => request.operation === "get_project").slice(0, 1);
    if (config.warmupSeconds > 0) await runLoad(server.url, cheapest, config.warmupSeconds);
    const cpuBefore = server.cpuSeconds();
    const result = await runLoad(server.url, cheapest, config.loadSeconds);
    result.serverCpuUsPerRequest = ((server.cpuSeconds() - cpuBefore) * 1e6) / result.total;
    const unexpected = Object.keys(result.statuses).filter((status) => status !== "200");
    if (unexpected.length > 0 || result.errors > 0) throw new Error(`observe: statuses ${JSON.stringify(result.statuses)}, ${result.errors} errors`);
    return result;
  } finally {
    await server.stop();
  }
}

export async function benchObserve(config: BenchConfig, snapshot: string, label: string, log: (line: string) => void): Promise<SectionResult> {
  const sides = Object.keys(SIDES) as Side[];
  const runs = Object.fromEntries(sides.map((side) => [side, [] as LoadResult[]])) as Record<Side, LoadResult[]>;
  for (let round = 1; round <= config.httpRounds; round++) {
    // Rotated: listhen was always measured last in its round (1.13 in one full run, 1.02 in the next).
    for (const side of rotated(sides, round)) {
      const result = await _run(snapshot, SIDES[side], config);
      runs[side].push(result);
      log(`  round ${round} ${side.padEnd(22)}: ${Math.round(result.requestsPerSecond)} req/s, ${Math.round(result.serverCpuUsPerRequest ?? NaN)} µs CPU/req`);
    }
  }
  const summary = Object.fromEntries(sides.map((side) => [side, {
    requestsPerSecond: median(runs[side].map((r) => r.requestsPerSecond)),
    p99Ms: median(runs[side].map((r) => r.p99Ms)),
    cpuUsPerRequest: median(runs[side].map((r) => r.serverCpuUsPerRequest ?? NaN)),
  }])) as Record<Side, { requestsPerSecond: number; p99Ms: number; cpuUsPerRequest: number }>;
  const base = summary["node, log off"].cpuUsPerRequest;
  const inProcess = await logCostInProcess(snapshot, config.quick ? 20 : 60);
  log(`  in process: ${Object.entries(inProcess).map(([variant, us]) => `${variant} ${fixed(us)} µs`).join(", ")}`);
  const inProcessTable: Table = {
    title: "Observing, in one process: CPU per GET /v1/projects/{slug} through app.request (no HTTP), variants alternated in batches of 500",
    header: ["app", "CPU µs/req", "÷ log off"],
    rows: Object.entries(inProcess).map(([variant, us]) => [variant, fixed(us), fixed(us / inProcess["log off"])]),
  };
  const table: Table = {
    title: `Observing, GET /v1/projects/{slug} on the ${label} snapshot (median of ${config.httpRounds} alternated runs, ${config.loadSeconds} s each)`,
    header: ["cei serve", "req/s", "p99 ms", "server CPU µs/req", "CPU ÷ node, log off"],
    rows: sides.map((side) => {
      const s = summary[side];
      return [side, Math.round(s.requestsPerSecond), fixed(s.p99Ms), Math.round(s.cpuUsPerRequest), fixed(s.cpuUsPerRequest / base)];
    }),
  };
  return {
    tables: [table, inProcessTable],
    targets: [
      target("observe: request log CPU ÷ log off (in process)", inProcess["log on"] / inProcess["log off"], "max", 1.15),
      target("observe: listhen CPU ÷ node:http (adopt below 1.05)", summary["listhen, log off"].cpuUsPerRequest / base, "max", 1.05),
    ],
    figures: { sides: summary, runs, inProcessCpuUsPerRequest: inProcess },
  };
}
