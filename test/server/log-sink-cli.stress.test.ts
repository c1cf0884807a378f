// `cei serve` whose stderr nobody reads (a log shipper that hangs) or whose reader has gone: real
// processes on real pipes (the child's stderr as Node spawns it, a socket pair). The memory stays
// bounded while lines are dropped and counted, the count is reported in the log once it is read
// again (every line still one JSON object), and SIGTERM ends the process within the shutdown
// timeout whatever the log's reader does, even when another process made the descriptor blocking.
import { execFileSync, spawn, type ChildProcess } from "node:child_process";
import { closeSync, constants, mkdtempSync, openSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createInterface } from "node:readline";
import { afterAll, afterEach, beforeAll, expect, it } from "vitest";
import { openMeterDatabase } from "../../server/meter/sqlite/database.ts";
import { createKey } from "../../server/meter/sqlite/keys.ts";
import { CEI_BIN, REPO_ROOT, keepAliveClient } from "../_support/processes.ts";
import { fixtureSnapshot } from "../_support/server.ts";
import { until } from "../_support/until.ts";

const SHUTDOWN_TIMEOUT_MS = 1_000;
/** Exit after SIGTERM: the shutdown timeout, and a generous margin for a machine under load. */
const EXIT_WITHIN_MS = SHUTDOWN_TIMEOUT_MS + 3_000;

let dir: string;
let snapshot: string;
let key: string;
const children: ChildProcess[] = [];
beforeAll(async () => {
  snapshot = await fixtureSnapshot();
  dir = mkdtempSync(join(tmpdir(), "cei-log-sink-"));
  const admin = openMeterDatabase(join(dir, "meter.db"));
  ({ key } = createKey(admin, { tier: "internal", credits: 10_000_000 }, Date.now()));
  admin.close();
}, 60_000);
afterEach(() => {
  for (const child of children.splice(0)) if (child.exitCode === null && child.signalCode === null) child.kill("SIGKILL");
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

interface Served {
  child: ChildProcess;
  url: string;
  metricsUrl: string;
  /** What was read of stderr so far. */
  stderr(): string;
  /** Stops reading stderr: the pipe fills and stays full. */
  stall(): void;
  /** Reads stderr again. */
  resume(): void;
  exited: Promise<Exit>;
}

type Exit = { code: number | null; signal: NodeJS.Signals | null };

/** `cei serve` with stderr a pipe or the given descriptor; resolves with its URL once it is ready. */
async function spawnServe(stderr: "pipe" | number, extra: string[] = []): Promise<{ child: ChildProcess; url: string; exited: Promise<Exit> }> {
  const child = spawn(process.execPath, [
    CEI_BIN, "serve", "--snapshot", snapshot, "--meter", join(dir, "meter.db"), "--port", "0",
    "--listener", "node", "--shutdown-timeout", String(SHUTDOWN_TIMEOUT_MS), ...extra,
  ], { cwd: REPO_ROOT, stdio: ["ignore", "pipe", stderr] });
  children.push(child);
  const exited = new Promise<Exit>((resolve) => child.once("exit", (code, signal) => resolve({ code, signal })));
  const url = await new Promise<string>((resolve, reject) => {
    createInterface({ input: child.stdout! }).on("line", (line) => {
      const match = /^cei serving .* on (http:\/\/127\.0\.0\.1:\d+)$/.exec(line);
      if (match) resolve(match[1]!);
    });
    void exited.then(() => reject(new Error("cei serve exited before it was ready")));
  });
  return { child, url, exited };
}

/** `cei serve` with stderr read until it is listening (its start-up lines), as a shipper would. */
async function serve(): Promise<Served> {
  let text = "";
  const read = (chunk: Buffer) => void (text += chunk.toString());
  const { child, url, exited } = await spawnServe("pipe", ["--metrics-port", "0"]);
  child.stderr!.on("data", read);
  // The start-up lines are written before the ready line.
  await until(() => text.includes('"event":"listening"'), "the listening line", () => text);
  const listening = JSON.parse(text.split("\n").find((line) => line.includes('"event":"listening"'))!) as { metrics_url: string };
  return {
    child, url, metricsUrl: listening.metrics_url, exited, stderr: () => text,
    stall: () => {
      child.stderr!.off("data", read);
      child.stderr!.pause();
    },
    resume: () => {
      child.stderr!.on("data", read);
      child.stderr!.resume();
    },
  };
}

/** `count` requests, 16 at a time; every one must be answered 200. */
async function load(url: string, count: number): Promise<void> {
  const client = keepAliveClient(url, 16);
  let sent = 0;
  try {
    await Promise.all(Array.from({ length: 16 }, async () => {
      while (sent < count) {
        sent++;
        const answer = await client.get("/v1/projects/aurora-swap", key);
        if (answer.status !== 200) throw new Error(`answered ${answer.status}`);
      }
    }));
  } finally {
    client.close();
  }
}

function rssMiB(pid: number): number {
  return Number(/VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${pid}/status`, "utf8"))![1]) / 1024;
}

async function droppedLines(metricsUrl: string): Promise<number> {
  const text = await (await fetch(metricsUrl)).text();
  return Number(/^cei_log_lines_dropped_total (\d+)$/m.exec(text)![1]);
}

/** Milliseconds from SIGTERM to the exit, and how it exited; rejects beyond `EXIT_WITHIN_MS`. */
async function terminate(served: Served): Promise<{ ms: number; code: number | null }> {
  const started = Date.now();
  served.child.kill("SIGTERM");
  const timeout = new Promise<never>((_resolve, reject) => setTimeout(() => reject(new Error(`no exit ${EXIT_WITHIN_MS} ms after SIGTERM`)), EXIT_WITHIN_MS).unref());
  const { code } = await Promise.race([served.exited, timeout]);
  return { ms: Date.now() - started, code };
}

const lines = (text: string) => text.split("\n").filter((line) => line !== "");

/**
 * RSS growth over a batch of 20,000 requests after 40,000 that warm up: stalled, the first fill
 * the pipe and the log's bound, and the heap grows to its working size over the next (from the
 * bundle, +29 MiB over requests 20,000-40,000, then ~5 MiB per 20,000, as with stderr read).
 */
async function growthOverThirdBatch(served: Served): Promise<number> {
  await load(served.url, 40_000);
  const before = rssMiB(served.child.pid!);
  await load(served.url, 20_000);
  return rssMiB(served.child.pid!) - before;
}

it("a stalled stderr: memory stays bounded, lines are dropped and counted, and reported once read again", async () => {
  // The baseline: the same server and load with stderr read, measured in the same test, so that
  // what the heap keeps for other reasons (and when the collector runs on a loaded machine)
  // counts on both sides.
  const baseline = await serve();
  const baselineGrown = await growthOverThirdBatch(baseline);
  await terminate(baseline);
  const served = await serve();
  served.stall();
  const grown = await growthOverThirdBatch(served);
  // Held in memory, 20,000 more lines would take at least their 5 MiB of text (an unbounded
  // queue grew ~0.8 KB a request); dropped, they take nothing.
  expect(grown, `RSS grew ${grown.toFixed(1)} MiB over 20,000 requests, ${baselineGrown.toFixed(1)} MiB with stderr read`).toBeLessThan(baselineGrown + 4);
  const dropped = await droppedLines(served.metricsUrl);
  expect(dropped).toBeGreaterThan(10_000);

  served.resume();
  // The sink retries a stalled write on a timer and then writes out up to 4 MiB of held lines;
  // a request logged while that is still held is dropped too (and counted). So one request at a
  // time until one's line arrives: it is the first written with room, and reports every drop before it.
  let sent = 60_000;
  for (let logged = false; !logged;) {
    const response = await fetch(`${served.url}/v1/projects/aurora-swap`, { headers: { authorization: `Bearer ${key}` } });
    sent += 1;
    const id = response.headers.get("x-service-request-id")!;
    logged = await until(() => served.stderr().includes(id), "the request's line", served.stderr, 1_000).then(() => true, () => false);
    expect(sent, "no request line arrived within 60 requests of the reader's return").toBeLessThan(60_060);
  }
  // Every line is one JSON object; the drops are reported in the log exactly as counted.
  const logged = lines(served.stderr()).map((line) => JSON.parse(line) as Record<string, unknown>);
  const reported = logged.reduce((sum, line) => sum + ((line.dropped_log_lines as number | undefined) ?? 0), 0);
  expect(reported).toBe(await droppedLines(served.metricsUrl));
  expect(logged.filter((line) => line.msg === "request").length + reported).toBe(sent);
  expect((await terminate(served)).code).toBe(0);
}, 180_000);

it("SIGTERM with stderr stalled: exits within the shutdown timeout", async () => {
  const served = await serve();
  served.stall();
  await load(served.url, 8_000);
  const { ms, code } = await terminate(served);
  expect(code).toBe(0);
  expect(ms).toBeLessThan(EXIT_WITHIN_MS);
}, 120_000);

it("stderr's reader gone (EPIPE): serves on, counts the lines as dropped, and exits on SIGTERM", async () => {
  const served = await serve();
  served.child.stderr!.destroy();
  await load(served.url, 3_000);
  expect(await droppedLines(served.metricsUrl)).toBeGreaterThan(2_900);
  const { code } = await terminate(served);
  expect(code).toBe(0);
}, 120_000);

it("SIGTERM with stderr a stalled FIFO that another process made blocking: still ends within the bound", async () => {
  const fifo = join(dir, "stderr.fifo");
  execFileSync("mkfifo", [fifo]);
  // Nobody ever reads it; the read end is held open so that the writer meets a full pipe, not EPIPE.
  const readEnd = openSync(fifo, constants.O_RDONLY | constants.O_NONBLOCK);
  const writeEnd = openSync(fifo, "w");
  try {
    const { child, url, exited } = await spawnServe(writeEnd);
    await load(url, 4_000);
    // libuv clears O_NONBLOCK on the stdio a child inherits, and the flag belongs to the open file
    // description that cei's stderr shares: cei's next write to the full pipe blocks in the kernel.
    const makeBlocking = () => execFileSync(process.execPath, ["-e", "0"], { stdio: ["ignore", "ignore", writeEnd] });
    const flags = () => Number.parseInt(/flags:\s+(\d+)/.exec(readFileSync(`/proc/${child.pid}/fdinfo/2`, "utf8"))![1]!, 8);
    makeBlocking();
    // cei's libuv sets the flag again when it opens a stream on fd 2 later (seen on a loaded
    // machine): the other process makes it blocking again, as it would on its own next start.
    for (let tries = 1; (flags() & constants.O_NONBLOCK) !== 0 && tries < 10; tries++) {
      await new Promise((resolve) => setTimeout(resolve, 100));
      makeBlocking();
    }
    expect(flags() & constants.O_NONBLOCK).toBe(0);
    await new Promise((resolve) => setTimeout(resolve, 500));
    const started = Date.now();
    child.kill("SIGTERM");
    const timeout = new Promise<never>((_resolve, reject) => setTimeout(() => reject(new Error("no exit after SIGTERM")), EXIT_WITHIN_MS).unref());
    const ended = await Promise.race([exited, timeout]);
    expect(Date.now() - started).toBeLessThan(EXIT_WITHIN_MS);
    // Ended by the signal when a write was blocked (process.exit would have waited for it), else exit 0.
    expect([{ code: 0, signal: null }, { code: null, signal: "SIGTERM" }]).toContainEqual(ended);
  } finally {
    closeSync(writeEnd);
    closeSync(readEnd);
  }
}, 120_000);
