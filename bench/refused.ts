// Section "refused": what a refused request costs the server (decision 20: a refusal must cost little, or refusals become an attack). Server CPU
// per request of the cheapest refusal (a 429 on GET /v1/projects/{slug}) against 429s and 402s of
// expensive requests (a search of a common trigram in a small family, a 16 KiB body, 20 unknown
// query parameters), and another key's get_project p99 alone and while one key floods refused
// searches on 8 connections. Every run is against a fresh `cei serve` child.
import { RATE_WINDOW_MS, tierRateLimits } from "../server/policy.ts";
import { startCei, type CeiChild } from "./_children.ts";
import type { BenchConfig } from "./_config.ts";
import { LOAD_SETTINGS, median, PACED_SETTINGS, runLoad, type LoadRequest, type LoadResult } from "./_load.ts";
import { fixed, target, type SectionResult } from "./_report.ts";
import { buildWorkload } from "./_workload.ts";

interface Case {
  name: string;
  /** Which extra key sends it: `limited` (free tier, window used up) or `broke` (no credits). */
  key: "limited" | "broke";
  /** One request sent again and again, or several sent in turn. */
  request: (slug: string) => LoadRequest | LoadRequest[];
  /** Statuses the run may answer. */
  statuses: readonly string[];
  /** Counted in the 1.5x target (429 and 402); the 422s are shown for comparison. */
  refused: boolean;
}

const SEARCH = JSON.stringify({ q: "ing", types: ["x_account"], limit: 20 });
const INVALID_16K = JSON.stringify({ q: "ab", types: Array(8_150).fill(0) });
/** A valid search padded with whitespace to 16 KiB, so that a key without credits gets 402, not 422. */
const VALID_16K = `{"q":"ing","types":["x_account"],"limit":20${" ".repeat(16_384 - SEARCH.length - 1)}}`;
/**
 * SEARCH in DISTINCT_BODIES variants that differ only in whitespace (up to 6 spaces in each of 4
 * places): none is ever remembered as already validated (server/operations/operation.ts,
 * ValidBodyCache), so this is what a 402 costs an abuser who varies the body.
 */
const DISTINCT_BODIES = 2_401;
const SEARCH_EACH_DIFFERENT = (): string[] => Array.from({ length: DISTINCT_BODIES }, (_, i) => {
  const [a, b, c, d] = [0, 1, 2, 3].map((place) => " ".repeat(Math.floor(i / 7 ** place) % 7));
  return `{${a}"q":"ing",${b}"types":["x_account"],${c}"limit":20${d}}`;
});
const UNKNOWN_20 = Array.from({ length: 20 }, (_, i) => `unknown_parameter_${i}=${"v".repeat(20)}`).join("&");

const post = (body: string): LoadRequest => ({ method: "POST", path: "/v1/search", body, headers: { "content-type": "application/json" } });
const project = (slug: string): LoadRequest => ({ method: "GET", path: `/v1/projects/${slug}` });

const CASES: readonly Case[] = [
  { name: "429 GET project (cheapest)", key: "limited", request: project, statuses: ["429"], refused: true },
  { name: "429 search q=ing x_account", key: "limited", request: () => post(SEARCH), statuses: ["429"], refused: true },
  { name: "429 search 16 KiB invalid body", key: "limited", request: () => post(INVALID_16K), statuses: ["429"], refused: true },
  { name: "429 GET project + 20 unknown params", key: "limited", request: (slug) => ({ ...project(slug), path: `/v1/projects/${slug}?${UNKNOWN_20}` }), statuses: ["429"], refused: true },
  { name: "402 GET project", key: "broke", request: project, statuses: ["402"], refused: true },
  { name: "402 search q=ing x_account", key: "broke", request: () => post(SEARCH), statuses: ["402"], refused: true },
  { name: "402 search q=ing x_account, each different", key: "broke", request: () => SEARCH_EACH_DIFFERENT().map(post), statuses: ["402"], refused: true },
  { name: "402 search 16 KiB valid body", key: "broke", request: () => post(VALID_16K), statuses: ["402"], refused: true },
  { name: "422 (0 credits) 16 KiB invalid body", key: "broke", request: () => post(INVALID_16K), statuses: ["422"], refused: false },
  { name: "422 (0 credits) 20 unknown params", key: "broke", request: (slug) => ({ ...project(slug), path: `/v1/projects/${slug}?${UNKNOWN_20}` }), statuses: ["422"], refused: false },
];

/** 8 connections as fast as they go: autocannon's overall rate set far above any server's capacity. */
const FLOOD = { connections: 8, requestsPerSecond: 1_000_000 };

export async function benchRefused(config: BenchConfig, snapshot: string, label: string, log: (line: string) => void): Promise<SectionResult> {
  // Cases alternated round by round, each run in a fresh server; the median per case is reported.
  const runs = CASES.map(() => [] as Array<{ us: number; statuses: Record<string, number> }>);
  for (let round = 1; round <= config.httpRounds; round++) {
    for (const [index, c] of CASES.entries()) {
      const run = await _cpuRun(c, snapshot, config);
      runs[index]!.push(run);
      log(`  round ${round} ${c.name.padEnd(38)}: server CPU ${fixed(run.us)} µs/req ${JSON.stringify(run.statuses)}`);
    }
  }
  const cpu = CASES.map((c, index) => ({
    name: c.name, refused: c.refused, us: median(runs[index]!.map((run) => run.us)), statuses: runs[index]!.at(-1)!.statuses,
  }));
  const cheapest = cpu[0]!.us;
  const worstRefused = Math.max(...cpu.filter((c) => c.refused).map((c) => c.us / cheapest));

  const latency = await _victimLatency(snapshot, config, log);
  return {
    tables: [
      {
        title: `Refused requests on the ${label} snapshot: server CPU per request (median of ${config.httpRounds} alternated ${config.loadSeconds} s runs, ${LOAD_SETTINGS.connections} connections)`,
        header: ["request", "server CPU µs/req", "÷ cheapest refusal", "statuses"],
        rows: cpu.map((c) => [c.name, fixed(c.us), fixed(c.us / cheapest), JSON.stringify(c.statuses)]),
      },
      {
        title: `Another key's GET /v1/projects/{slug} (paced ${PACED_SETTINGS.requestsPerSecond} req/s on ${PACED_SETTINGS.connections} connections), alone and while one key floods refused searches on ${FLOOD.connections} connections`,
        header: ["run", "p50 ms", "p99 ms", "flood req/s"],
        rows: [
          ["alone", fixed(latency.alone.p50Ms), fixed(latency.alone.p99Ms), "—"],
          ["with flood", fixed(latency.flooded.p50Ms), fixed(latency.flooded.p99Ms), Math.round(latency.flood.requestsPerSecond)],
        ],
      },
    ],
    targets: [
      target("refused: worst 429/402 CPU ÷ cheapest refusal", worstRefused, "max", 1.5),
      target("refused: other key's p99 with flood ÷ alone", latency.flooded.p99Ms / latency.alone.p99Ms, "max", 2),
    ],
    figures: { cpuUsPerRequest: cpu, latency },
  };
}

/** Server CPU per request of the cheapest refusal (a 429 on GET /v1/projects/{slug}), over `seconds` of load. */
export async function cheapestRefusalCpu(snapshot: string, config: BenchConfig, seconds: number): Promise<number> {
  return (await _cpuRun(CASES[0]!, snapshot, config, seconds)).us;
}

async function _cpuRun(c: Case, snapshot: string, config: BenchConfig, seconds = config.loadSeconds): Promise<{ us: number; statuses: Record<string, number> }> {
  const server = await _start(snapshot);
  try {
    const key = c.key === "limited" ? server.extraKeys[0]! : server.extraKeys[1]!;
    const made = c.request(_slug(snapshot, server));
    const requests = (Array.isArray(made) ? made : [made]).map((request) => _withKey(request, key));
    // The free key's window must not roll over mid-run: its first 60 requests would be admitted.
    if (c.key === "limited") await _useUpWindow(server.url, key, config.warmupSeconds + seconds + 2);
    await runLoad(server.url, requests, config.warmupSeconds);
    const before = server.cpuSeconds();
    const result = await runLoad(server.url, requests, seconds);
    _expect(c.name, result, c.statuses);
    return { us: ((server.cpuSeconds() - before) * 1e6) / result.total, statuses: result.statuses };
  } finally {
    await server.stop();
  }
}

async function _victimLatency(snapshot: string, config: BenchConfig, log: (line: string) => void) {
  const server = await _start(snapshot);
  try {
    const victim = buildWorkload(snapshot, server.key).filter((r) => r.operation === "get_project" && !r.path.includes("no-such-"));
    await runLoad(server.url, victim, config.warmupSeconds, PACED_SETTINGS);
    const alone = await runLoad(server.url, victim, config.loadSeconds, PACED_SETTINGS);
    const flooding = runLoad(server.url, [_withKey(post(SEARCH), server.extraKeys[1]!)], config.loadSeconds + 2, FLOOD);
    await new Promise((resolve) => setTimeout(resolve, 1_000));
    const flooded = await runLoad(server.url, victim, config.loadSeconds, PACED_SETTINGS);
    const flood = await flooding;
    _expect("flood", flood, ["402"]);
    _expect("victim", flooded, ["200"]);
    log(`  victim alone p99 ${fixed(alone.p99Ms)} ms; with flood p99 ${fixed(flooded.p99Ms)} ms (flood ${Math.round(flood.requestsPerSecond)} req/s)`);
    return { alone: { p50Ms: alone.p50Ms, p99Ms: alone.p99Ms }, flooded: { p50Ms: flooded.p50Ms, p99Ms: flooded.p99Ms }, flood: { requestsPerSecond: flood.requestsPerSecond } };
  } finally {
    await server.stop();
  }
}

/**
 * Waits until the current epoch-aligned rate window (the server's) has `seconds` left, then spends
 * the free key's window with GET /v1/key, so that every request of the run is refused with 429.
 */
async function _useUpWindow(url: string, key: string, seconds: number): Promise<void> {
  const left = RATE_WINDOW_MS - (Date.now() % RATE_WINDOW_MS);
  if (left < seconds * 1000) await new Promise((resolve) => setTimeout(resolve, left + 50));
  for (let i = 0; i < tierRateLimits.free; i++) await (await fetch(`${url}/v1/key`, { headers: { authorization: `Bearer ${key}` } })).text();
}

/** extraKeys[0]: free tier, no credits (its window is used up before each run); [1]: internal tier, no credits. */
function _start(snapshot: string): Promise<CeiChild> {
  return startCei(snapshot, { extraKeys: [{ tier: "free", credits: 0 }, { tier: "internal", credits: 0 }] });
}

function _slug(snapshot: string, server: CeiChild): string {
  const first = buildWorkload(snapshot, server.key).find((r) => r.operation === "get_project" && !r.path.includes("no-such-"));
  return first!.path.split("/").pop()!;
}

function _withKey(request: LoadRequest, key: string): LoadRequest {
  return { ...request, headers: { ...request.headers, authorization: `Bearer ${key}` } };
}

function _expect(name: string, result: LoadResult, allowed: readonly string[]): void {
  const unexpected = Object.keys(result.statuses).filter((status) => !allowed.includes(status));
  if (unexpected.length > 0 || result.errors > 0) {
    throw new Error(`${name}: unexpected outcome: statuses ${JSON.stringify(result.statuses)}, ${result.errors} errors`);
  }
}
