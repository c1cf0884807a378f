// Section "operations": what each released operation costs the server alone, over HTTP.
// Per round, in a fresh child each: a bare h3 app answering a body of get_project's size, the same
// app answering as cei does (its response class and headers: the cost of sending cei's answer), the
// cheapest refused request (a 429 on GET /v1/projects/{slug}), get_project with the request log off,
// then one `cei serve` sent each operation's own requests from the mixed workload (200s and 404s),
// one operation after another in an order rotated every round, and the whole mixed workload, with a
// short run of get_project between every two of them. Server CPU per request, median over rounds.
// An operation's ratio to get_project is paired: each run is divided by the mean of the get_project
// runs just before and just after it, on the same server, and the ratio is the median of those
// over the rounds, so that the VM's slow drifts (a round's figures move together by up to ~30%)
// cancel out of it. The rows of other servers (the baselines) are divided by get_project's median.
// The two extra rows show where get_project's cost goes (docs/performance.md).
import type { OperationId } from "../server/policy.ts";
import { startBaseline, startCei, type ServerChild } from "./_children.ts";
import type { BenchConfig } from "./_config.ts";
import { median, rotated, runLoad, type LoadRequest } from "./_load.ts";
import { fixed, target, type SectionResult, type Target } from "./_report.ts";
import { buildWorkload, probeWorkload, type WorkloadRequest } from "./_workload.ts";
import { cheapestRefusalCpu } from "./refused.ts";

const MIXED = "mixed workload";
const H3 = "h3";
const H3_REPLY = "h3, answering as cei (headers, response class)";
const REFUSAL = "429 GET project (cheapest refusal)";
const LOG_OFF = "get_project, request log off";
const SEARCHES: ReadonlySet<string> = new Set<OperationId>(["search_entities", "search_people"]);

export async function benchOperations(config: BenchConfig, snapshot: string, label: string, log: (line: string) => void): Promise<SectionResult> {
  const { operations, projectBodyBytes } = await _probe(snapshot);
  const cpu = new Map<string, number[]>([[H3, []], [H3_REPLY, []], [REFUSAL, []], [LOG_OFF, []], [MIXED, []]]);
  for (const operation of operations) cpu.set(operation, []);
  /** Each run of an operation (and of the mix) ÷ the mean of the get_project runs beside it. */
  const paired = new Map<string, number[]>([[MIXED, []]]);
  for (const operation of operations) paired.set(operation, []);
  const seconds = config.operationSeconds;
  // A pair run is half a run, after a quarter of the warm-up: without one, the pairs cost ~3-5% more
  // a request than get_project's own runs (they paid for the run before them: its garbage, new
  // connections), which biased every paired ratio down by as much (a --quick run, 2026-11-26).
  const pairSeconds = seconds / 2;
  const pairWarmup = config.warmupSeconds / 4;

  for (let round = 1; round <= config.operationRounds; round++) {
    const projectRequests = (key: string) => buildWorkload(snapshot, key).filter((r) => r.operation === "get_project");
    for (const [name, kind] of [[H3, "h3"], [H3_REPLY, "h3-reply"]] as const) {
      const baseline = await startBaseline(kind, projectBodyBytes);
      try {
        cpu.get(name)!.push(await cpuPerRequest(baseline, projectRequests("baseline-key"), config.warmupSeconds, seconds));
      } finally {
        await baseline.stop();
      }
    }
    cpu.get(REFUSAL)!.push(await cheapestRefusalCpu(snapshot, config, seconds));
    const quiet = await startCei(snapshot, { args: ["--log-level", "warn"] });
    try {
      cpu.get(LOG_OFF)!.push(await cpuPerRequest(quiet, projectRequests(quiet.key), config.warmupSeconds, seconds));
    } finally {
      await quiet.stop();
    }

    // A key of its own per run, and one for the get_project runs between them: one key at ~20k
    // requests a second would reach the internal tier's 1,000,000 requests a minute within the section.
    const order = [...rotated(operations, round), MIXED];
    const server = await startCei(snapshot, { extraKeys: [...order, "pairs"].map(() => ({ tier: "internal", credits: 1_000_000_000_000 })) });
    try {
      const beside = projectRequests(server.extraKeys[order.length]!);
      let before = await cpuPerRequest(server, beside, config.warmupSeconds, pairSeconds);
      // Rotated, so that no operation always runs first (colder) or last (after the most garbage).
      for (const [i, name] of order.entries()) {
        const workload = buildWorkload(snapshot, server.extraKeys[i]!);
        const requests = name === MIXED ? workload : workload.filter((r) => r.operation === name);
        const us = await cpuPerRequest(server, requests, config.warmupSeconds, seconds);
        const after = await cpuPerRequest(server, beside, pairWarmup, pairSeconds);
        cpu.get(name)!.push(us);
        paired.get(name)!.push(us / ((before + after) / 2));
        before = after;
      }
    } finally {
      await server.stop();
    }
    log(`  round ${round}: ${[...cpu].map(([name, runs]) => `${name} ${fixed(runs.at(-1)!)}`).join(", ")} µs/req; mixed ÷ the get_project runs beside it ${fixed(paired.get(MIXED)!.at(-1)!)}`);
  }

  const us = (name: string) => median(cpu.get(name)!);
  const project = us("get_project");
  const rows = [...cpu.keys()].map((name) => {
    const pairs = paired.get(name);
    return { name, us: us(name), ratio: pairs === undefined ? us(name) / project : median(pairs), ofMedians: us(name) / project };
  });
  const slowest = rows.filter((r) => operations.includes(r.name as OperationId) && !SEARCHES.has(r.name));
  const searches = rows.filter((r) => SEARCHES.has(r.name));
  const targets: Target[] = [
    target("operations: slowest non-search ÷ get_project", Math.max(...slowest.map((r) => r.ratio)), "max", 1.3),
    target("operations: slowest search ÷ get_project", Math.max(...searches.map((r) => r.ratio)), "max", 2),
    target("operations: mixed workload ÷ get_project", rows.find((r) => r.name === MIXED)!.ratio, "max", 1.3),
    target("operations: get_project ÷ bare h3", project / us(H3), "max", 1.6),
  ];
  return {
    tables: [{
      title: `Server CPU per request, each operation alone over HTTP on the ${label} snapshot (median of ${config.operationRounds} alternated rounds, ${seconds} s each; ÷ get_project: median of each run ÷ the get_project runs beside it, baselines ÷ get_project's median)`,
      header: ["request", "server CPU µs/req", "÷ get_project", "÷ get_project's median"],
      rows: rows.map((r) => [r.name, fixed(r.us), fixed(r.ratio), fixed(r.ofMedians)]),
    }],
    targets,
    figures: {
      seconds, pairSeconds, pairWarmup, rounds: config.operationRounds,
      cpuUsPerRequest: Object.fromEntries(rows.map((r) => [r.name, {
        median: r.us, ratioToGetProject: r.ratio, ratioOfMedians: r.ofMedians, runs: cpu.get(r.name), pairedRatios: paired.get(r.name),
      }])),
    },
  };
}

/** Server CPU (µs) per request of a load run of `requests`, after an unmeasured warm-up; only 200s and 404s expected. */
export async function cpuPerRequest(server: ServerChild, requests: readonly LoadRequest[], warmupSeconds: number, seconds: number): Promise<number> {
  if (warmupSeconds > 0) await runLoad(server.url, requests, warmupSeconds);
  const before = server.cpuSeconds();
  const result = await runLoad(server.url, requests, seconds);
  const unexpected = Object.keys(result.statuses).filter((status) => status !== "200" && status !== "404");
  if (unexpected.length > 0 || result.errors > 0) {
    throw new Error(`unexpected outcome under load: statuses ${JSON.stringify(result.statuses)}, ${result.errors} errors`);
  }
  return ((server.cpuSeconds() - before) * 1e6) / result.total;
}

/** The released operations (every one must answer 200 somewhere in the workload), and get_project's mean body. */
async function _probe(snapshot: string): Promise<{ operations: OperationId[]; projectBodyBytes: number }> {
  const server = await startCei(snapshot);
  try {
    const workload: WorkloadRequest[] = buildWorkload(snapshot, server.key);
    const operations = [...new Set(workload.map((r) => r.operation))];
    const all = await probeWorkload(server.url, workload);
    const missing = Object.entries(all.statusesByOperation).filter(([, statuses]) => statuses["200"] === undefined);
    if (missing.length > 0) throw new Error(`operations never answered 200 in the workload: ${missing.map(([op]) => op).join(", ")}`);
    const project = await probeWorkload(server.url, workload.filter((r) => r.operation === "get_project"));
    return { operations, projectBodyBytes: project.meanBodyBytes };
  } finally {
    await server.stop();
  }
}
