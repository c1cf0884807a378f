// Section "operations": what each released operation costs the server alone, over HTTP (issue 12).
// Per round, in a fresh child each: a bare h3 app answering a body of get_project's size, the same
// app answering as cei does (its response class and headers: the cost of sending cei's answer), the
// cheapest refused request (a 429 on GET /v1/projects/{slug}), get_project with the request log off,
// then one `cei serve` sent each operation's own requests from the mixed workload (200s and 404s),
// one operation after another in an order rotated every round, and the whole mixed workload. Server
// CPU per request, median over rounds; every figure is compared with get_project measured in the
// same rounds. The two extra rows show where get_project's cost goes (docs/performance.md).
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
  const seconds = config.operationSeconds;

  for (let round = 1; round <= config.operationRounds; round++) {
    const projectRequests = (key: string) => buildWorkload(snapshot, key).filter((r) => r.operation === "get_project");
    for (const [name, kind] of [[H3, "h3"], [H3_REPLY, "h3-reply"]] as const) {
      const baseline = await startBaseline(kind, projectBodyBytes);
      try {
        cpu.get(name)!.push(await _cpuPerRequest(baseline, projectRequests("baseline-key"), config));
      } finally {
        await baseline.stop();
      }
    }
    cpu.get(REFUSAL)!.push(await cheapestRefusalCpu(snapshot, config, seconds));
    const quiet = await startCei(snapshot, { args: ["--log-level", "warn"] });
    try {
      cpu.get(LOG_OFF)!.push(await _cpuPerRequest(quiet, projectRequests(quiet.key), config));
    } finally {
      await quiet.stop();
    }

    // A key of its own per run: one key at ~20k requests a second would reach the internal tier's
    // 1,000,000 requests a minute within the section.
    const order = [...rotated(operations, round), MIXED];
    const server = await startCei(snapshot, { extraKeys: order.map(() => ({ tier: "internal", credits: 1_000_000_000_000 })) });
    try {
      // Rotated, so that no operation always runs first (colder) or last (after the most garbage).
      for (const [i, name] of order.entries()) {
        const workload = buildWorkload(snapshot, server.extraKeys[i]!);
        const requests = name === MIXED ? workload : workload.filter((r) => r.operation === name);
        cpu.get(name)!.push(await _cpuPerRequest(server, requests, config));
      }
    } finally {
      await server.stop();
    }
    log(`  round ${round}: ${[...cpu].map(([name, runs]) => `${name} ${fixed(runs.at(-1)!)}`).join(", ")} µs/req`);
  }

  const us = (name: string) => median(cpu.get(name)!);
  const project = us("get_project");
  const rows = [...cpu.keys()].map((name) => ({ name, us: us(name), ratio: us(name) / project }));
  const slowest = rows.filter((r) => operations.includes(r.name as OperationId) && !SEARCHES.has(r.name));
  const searches = rows.filter((r) => SEARCHES.has(r.name));
  const targets: Target[] = [
    target("operations: slowest non-search ÷ get_project", Math.max(...slowest.map((r) => r.ratio)), "max", 1.3),
    target("operations: slowest search ÷ get_project", Math.max(...searches.map((r) => r.ratio)), "max", 2),
    target("operations: mixed workload ÷ get_project", us(MIXED) / project, "max", 1.3),
    target("operations: get_project ÷ bare h3", project / us(H3), "max", 1.6),
  ];
  return {
    tables: [{
      title: `Server CPU per request, each operation alone over HTTP on the ${label} snapshot (median of ${config.operationRounds} alternated rounds, ${seconds} s each)`,
      header: ["request", "server CPU µs/req", "÷ get_project"],
      rows: rows.map((r) => [r.name, fixed(r.us), fixed(r.ratio)]),
    }],
    targets,
    figures: { seconds, rounds: config.operationRounds, cpuUsPerRequest: Object.fromEntries(rows.map((r) => [r.name, { median: r.us, ratioToGetProject: r.ratio, runs: cpu.get(r.name) }])) },
  };
}

async function _cpuPerRequest(server: ServerChild, requests: readonly LoadRequest[], config: BenchConfig): Promise<number> {
  await runLoad(server.url, requests, config.warmupSeconds);
  const before = server.cpuSeconds();
  const result = await runLoad(server.url, requests, config.operationSeconds);
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
