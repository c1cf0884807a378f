// Child processes of the benchmark: every server under load and every compile runs in its own
// process, so that the load generator (this process) and the measured code never share a thread.
import { spawn, type ChildProcess } from "node:child_process";
import { randomUUID } from "node:crypto";
import { mkdirSync, readFileSync, rmSync } from "node:fs";
import { join } from "node:path";
import { createInterface } from "node:readline";
import { openMeterDatabase } from "../server/meter/sqlite/database.ts";
import { createKey } from "../server/meter/sqlite/keys.ts";
import type { Tier } from "../server/policy.ts";
import type { CompileChildReport } from "./_compile-child.ts";
import { BENCH_X_SECRET, OUT_DIR, REPO_DIR } from "./_config.ts";
import type { Sample } from "./_samples.ts";

const TSX = ["--import", "tsx"];
const READY_TIMEOUT_MS = 30_000;

export interface ServerChild {
  url: string;
  /** performance.now() just before spawn, and when the ready line arrived. */
  spawnedAt: number;
  readyAt: number;
  /** CPU time (user + system) the server process has used so far, from /proc: seconds. */
  cpuSeconds(): number;
  stop(): Promise<void>;
}

export async function runCompileChild(mode: "compile" | "floor", sample: Sample, outFile: string): Promise<CompileChildReport> {
  const args = [...TSX, join(REPO_DIR, "bench/_compile-child.ts"), mode, sample.dir, outFile, sample.asOf.toISOString(), BENCH_X_SECRET];
  const child = spawn(process.execPath, args, { cwd: REPO_DIR, stdio: ["ignore", "pipe", "inherit"] });
  let output = "";
  child.stdout.setEncoding("utf8").on("data", (chunk: string) => (output += chunk));
  const code = await new Promise<number | null>((resolve) => child.once("exit", resolve));
  const line = output.trim().split("\n").pop() ?? "";
  if (code !== 0 || !line.startsWith("{")) throw new Error(`${mode} of ${sample.dir} failed (exit ${code}): ${output.slice(-2000)}`);
  const report = JSON.parse(line) as CompileChildReport;
  if (!report.ok) throw new Error(`${mode} of ${sample.dir} found problems:\n${(report.problems ?? []).join("\n")}`);
  return report;
}

/** A baseline of bench/_baseline-server.ts, answering `bodyBytes` of JSON to every request. */
export function startBaseline(kind: "raw" | "h3" | "h3-reply", bodyBytes: number): Promise<ServerChild> {
  const args = [...TSX, join(REPO_DIR, "bench/_baseline-server.ts"), kind, "0", String(Math.round(bodyBytes))];
  return _startServer(args, /^ready (http:\/\/\S+)/, []);
}

export interface CeiChild extends ServerChild {
  /** A real key (tier internal: the rate limit does not trip) in this server's own meter file. */
  key: string;
  /** The keys asked for with `extraKeys`, in that order. */
  extraKeys: string[];
}

/**
 * `cei serve` exactly as an operator runs it (bin/cei.js), on a meter file of its own holding one
 * internal-tier key with more credits than any run can spend. `nodeArgs` (e.g. --cpu-prof) go
 * before the script; `entry` replaces bin/cei.js; `env` is added to the child's environment (e.g.
 * CEI_ENTRY=tsx, start-up's run of the sources through tsx instead of the prebuilt dist/).
 */
export async function startCei(
  snapshot: string,
  options: {
    nodeArgs?: readonly string[]; entry?: string; env?: Readonly<Record<string, string>>;
    extraKeys?: ReadonlyArray<{ tier: Tier; credits: number }>;
    /** More `cei serve` options (e.g. --log-level warn, --listener listhen). */
    args?: readonly string[];
    /** A meter shared with other servers (a postgres:// URL) and a key in it, instead of a file of its own. */
    sharedMeter?: { location: string; key: string };
  } = {},
): Promise<CeiChild> {
  const { meterFile, key, extraKeys } = options.sharedMeter === undefined
    ? createBenchMeter(options.extraKeys)
    : { meterFile: options.sharedMeter.location, key: options.sharedMeter.key, extraKeys: [] };
  const args = [...(options.nodeArgs ?? []), options.entry ?? join(REPO_DIR, "bin/cei.js"), "serve", "--snapshot", snapshot, "--meter", meterFile, "--port", "0", ...(options.args ?? [])];
  const cleanup = options.sharedMeter === undefined ? [meterFile, `${meterFile}-wal`, `${meterFile}-shm`] : [];
  const server = await _startServer(args, /^cei serving .* on (http:\/\/\S+)/, cleanup, options.env);
  return { ...server, key, extraKeys };
}

/** A fresh meter file with one internal key (and any extra ones); the caller's server removes it when it stops. */
export function createBenchMeter(extra: ReadonlyArray<{ tier: Tier; credits: number }> = []): { meterFile: string; key: string; extraKeys: string[] } {
  mkdirSync(OUT_DIR, { recursive: true });
  const meterFile = join(OUT_DIR, `meter-${randomUUID()}.db`);
  const db = openMeterDatabase(meterFile);
  const created = createKey(db, { tier: "internal", credits: 1_000_000_000_000, name: "bench" }, Date.now());
  const extraKeys = extra.map((options) => createKey(db, options, Date.now()).key);
  db.close();
  return { meterFile, key: created.key, extraKeys };
}

function _startServer(args: readonly string[], ready: RegExp, cleanup: readonly string[], env?: Readonly<Record<string, string>>): Promise<ServerChild> {
  const childEnv = env === undefined ? process.env : { ...process.env, ...env };
  const spawnedAt = performance.now();
  const child = spawn(process.execPath, args, { cwd: REPO_DIR, env: childEnv, stdio: ["ignore", "pipe", "pipe"] });
  let stderr = "";
  child.stderr.setEncoding("utf8").on("data", (chunk: string) => (stderr = (stderr + chunk).slice(-4000)));
  const stop = () => _stop(child, cleanup);
  return new Promise<ServerChild>((resolve, reject) => {
    const timer = setTimeout(() => fail(new Error(`no ready line within ${READY_TIMEOUT_MS} ms`)), READY_TIMEOUT_MS);
    const fail = (error: Error) => {
      clearTimeout(timer);
      void stop();
      reject(new Error(`${args.join(" ")}: ${error.message}\n${stderr}`));
    };
    child.once("exit", (code) => fail(new Error(`exited with ${code} before it was ready`)));
    const lines = createInterface({ input: child.stdout });
    lines.on("line", (line) => {
      const match = ready.exec(line);
      if (match === null) return;
      const readyAt = performance.now();
      clearTimeout(timer);
      child.removeAllListeners("exit");
      resolve({ url: match[1]!, spawnedAt, readyAt, cpuSeconds: () => processCpuSeconds(child.pid!), stop });
    });
  });
}

/** Milliseconds from spawn to exit of `node <args>` (the start-up floors). */
export async function timeExit(args: readonly string[]): Promise<number> {
  const started = performance.now();
  const child = spawn(process.execPath, args, { cwd: REPO_DIR, stdio: "ignore" });
  const code = await new Promise<number | null>((resolve) => child.once("exit", resolve));
  if (code !== 0) throw new Error(`node ${args.join(" ")} exited with ${code}`);
  return performance.now() - started;
}

/** utime + stime (fields 14 and 15 of /proc/<pid>/stat, in clock ticks of 1/100 s on Linux). */
export function processCpuSeconds(pid: number): number {
  const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
  const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
  return (Number(fields[11]) + Number(fields[12])) / CLOCK_TICKS_PER_SECOND;
}
const CLOCK_TICKS_PER_SECOND = 100;

async function _stop(child: ChildProcess, cleanup: readonly string[]): Promise<void> {
  if (child.exitCode === null && child.signalCode === null) {
    const exited = new Promise<void>((resolve) => child.once("exit", () => resolve()));
    child.kill("SIGTERM");
    const timer = setTimeout(() => child.kill("SIGKILL"), 5_000);
    await exited;
    clearTimeout(timer);
  }
  for (const file of cleanup) rmSync(file, { force: true });
}
