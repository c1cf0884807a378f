// Clients for the load tests of the listener's limits: an attacker as its own process
// (_slowloris.mjs, _flood.mjs), and a victim's timed requests from another loopback address.
import { spawn } from "node:child_process";
import { Agent, request, type IncomingMessage } from "node:http";
import { fileURLToPath } from "node:url";
import { onTestFinished } from "vitest";

export interface Attacker<Done> {
  /** SIGSTOP: its connections stay open and silent, so the same server can be measured without it. */
  pause(): void;
  resume(): void;
  stop(): Promise<Done>;
}

/**
 * Starts `script` (beside this file) with `args`, resolved once it prints {"ready":true}; stop()
 * sends SIGTERM and resolves with its {"done":true,...} line. It runs at the lowest CPU priority:
 * a real attacker spends its own machine's CPU, and here it shares two cores with the server,
 * which it would otherwise slow by taking the CPU rather than by what it sends. Killed when the
 * test ends.
 */
export async function startAttacker<Done>(script: string, args: readonly (string | number)[]): Promise<Attacker<Done>> {
  const path = fileURLToPath(new URL(script, import.meta.url));
  // nice execs node, so the child's pid is the attacker's own.
  const child = spawn("nice", ["-n", "19", process.execPath, path, ...args.map(String)], { stdio: ["ignore", "pipe", "inherit"] });
  onTestFinished(() => void child.kill("SIGKILL"));
  const lines: Record<string, unknown>[] = [];
  let waiting: (() => void) | undefined;
  child.stdout.setEncoding("utf8").on("data", (chunk: string) => {
    for (const line of chunk.split("\n")) if (line !== "") lines.push(JSON.parse(line) as Record<string, unknown>);
    waiting?.();
  });
  const line = async (field: string) => {
    for (;;) {
      const found = lines.find((entry) => field in entry);
      if (found !== undefined) return found;
      if (child.exitCode !== null) throw new Error(`${script} exited with ${child.exitCode} before "${field}"`);
      await new Promise<void>((resolve) => (waiting = resolve));
    }
  };
  await line("ready");
  return {
    pause: () => void child.kill("SIGSTOP"),
    resume: () => void child.kill("SIGCONT"),
    async stop() {
      child.kill("SIGCONT");
      child.kill("SIGTERM");
      return (await line("done")) as Done;
    },
  };
}

/** One GET from `localAddress` (a new connection unless an agent is given); its status and milliseconds. */
export function timedGet(
  url: string, path: string, localAddress: string, headers: Record<string, string> = {}, agent?: Agent,
): Promise<{ status: number; ms: number }> {
  const started = performance.now();
  return new Promise((resolve, reject) => {
    const options = agent === undefined ? { localAddress, agent: false as const } : { agent };
    const req = request(`${url}${path}`, { ...options, headers, timeout: 5_000 }, (res: IncomingMessage) => {
      res.resume();
      res.once("end", () => resolve({ status: res.statusCode!, ms: performance.now() - started }));
    });
    req.once("timeout", () => req.destroy(new Error(`no answer to ${path} from ${localAddress} within 5 s`)));
    req.once("error", reject);
    req.end();
  });
}

const percentile = (sorted: readonly number[], p: number) => sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * p))]!;

/** `count` requests one after another; every status, and the p50 and p99 of their times. */
export async function sequentialRun(
  count: number, get: () => Promise<{ status: number; ms: number }>,
): Promise<RunFigures> {
  const statuses: number[] = [];
  const times: number[] = [];
  for (let i = 0; i < count; i++) {
    const { status, ms } = await get();
    statuses.push(status);
    times.push(ms);
  }
  times.sort((a, b) => a - b);
  return { statuses, p50: percentile(times, 0.5), p99: percentile(times, 0.99) };
}

export interface RunFigures {
  statuses: number[];
  p50: number;
  p99: number;
}

/**
 * The victim's figures with the attacker paused and running, in `rounds` turns, so that the
 * machine's own drifts (other tests, other processes on two shared cores) fall on both sides
 * alike: each side's p50 and p99 are the medians over the rounds, and `attacked` lists every status.
 */
export async function pairedRounds(attacker: Attacker<unknown>, victim: () => Promise<RunFigures>, rounds = 3): Promise<{ alone: RunFigures; attacked: RunFigures }> {
  const alone: RunFigures[] = [];
  const attacked: RunFigures[] = [];
  for (let round = 0; round < rounds; round++) {
    attacker.pause();
    alone.push(await victim());
    attacker.resume();
    await new Promise((resolve) => setTimeout(resolve, 100));
    attacked.push(await victim());
  }
  const median = (values: number[]) => values.sort((a, b) => a - b)[Math.floor(values.length / 2)]!;
  const summary = (runs: RunFigures[]) => ({ statuses: runs.flatMap((run) => run.statuses), p50: median(runs.map((run) => run.p50)), p99: median(runs.map((run) => run.p99)) });
  return { alone: summary(alone), attacked: summary(attacked) };
}
