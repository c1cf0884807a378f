// Snapshots the server owns (decision 36), through the real HTTP server: the served path is
// rewritten in place as `cp` does, truncated, overwritten with random bytes, replaced by a FIFO,
// a folder or a symlink to /dev/zero, each while requests are in flight. The server answers
// every request whole from the old or the new snapshot (never a mix, never a 500), never stops
// answering, and checks a changed path like any publish: a bad one is refused with one log line.
import { execFileSync } from "node:child_process";
import { closeSync, copyFileSync, mkdirSync, mkdtempSync, openSync, readdirSync, readFileSync, renameSync, rmSync, symlinkSync, truncateSync, writeSync } from "node:fs";
import { randomBytes } from "node:crypto";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { H3 } from "h3";
import Database from "better-sqlite3";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { createApp, SNAPSHOT_HEADER } from "../../server/app.ts";
import type { RunningServer } from "../../server/listen.ts";
import { createLogger } from "../../server/log.ts";
import { openMeterDatabase } from "../../server/meter/sqlite/database.ts";
import { createKey } from "../../server/meter/sqlite/keys.ts";
import { SqliteMeter } from "../../server/meter/sqlite/meter.ts";
import { Serving } from "../../server/serving.ts";
import { servingLog } from "../../server/observe.ts";
import { FIXTURE_X_SECRET } from "../_support/fixtures.ts";
import { compileSnapshotPair } from "../_support/snapshot-pair.ts";
import { until as untilLogged } from "../_support/until.ts";
import { FIXTURE_NOW, startTestServer } from "../_support/server.ts";

type Line = Record<string, unknown>;
interface Request { method: "GET" | "POST"; path: string; body?: string }

/** Searches read the snapshot on every request (they keep no answer); the details read it once per snapshot. */
const REQUESTS: Request[] = [
  { method: "POST", path: "/v1/search", body: JSON.stringify({ q: "aurora" }) },
  { method: "POST", path: "/v1/search", body: JSON.stringify({ q: "swap" }) },
  { method: "POST", path: "/v1/search", body: JSON.stringify({ q: "chain" }) },
  { method: "GET", path: "/v1/people/search?query=alice" },
  { method: "GET", path: "/v1/projects/aurora-swap" },
  { method: "GET", path: "/v1/projects/beacon-lend/features" },
];
/** Requests per scenario, over CLIENTS connections; the file is changed after the first quarter. */
const LOAD = 2_000;
const CLIENTS = 8;

const now = () => FIXTURE_NOW;
let work: string;
let folder: string;
let served: string;
let files: { a: string; b: string };
let hashes: { a: string; b: string };
/** The `data` (or `error.code`) each snapshot gives to each request, by content hash then request index. */
const expected = new Map<string, string[]>();
let serving: Serving;
let meter: SqliteMeter;
let admin: Database.Database;
let server: RunningServer;
let key: string;
const lines: Line[] = [];

beforeAll(async () => {
  work = mkdtempSync(join(tmpdir(), "cei-owned-"));
  ({ files, hashes } = await compileSnapshotPair(work));

  const meterFile = join(work, "meter.db");
  admin = openMeterDatabase(meterFile, { now });
  meter = SqliteMeter.open(meterFile, { now, synchronous: "NORMAL" });
  key = createKey(admin, { tier: "internal", credits: 100_000_000 }, FIXTURE_NOW).key;

  // What each snapshot answers, from a server of its own on an unchanging file.
  for (const file of [files.a, files.b]) {
    const reference = await Serving.open(file, { now, log: () => undefined, xSecret: FIXTURE_X_SECRET });
    const app = createApp({ serving: reference, meter, now });
    const answers: string[] = [];
    for (const request of REQUESTS) answers.push(_essence(await _call(app, request)));
    expected.set(reference.contentHash!, answers);
    reference.close();
  }
  expect(expected.get(hashes.a)).not.toEqual(expected.get(hashes.b));

  folder = join(work, "snapshots");
  mkdirSync(folder);
  served = join(folder, "current.db");
  copyFileSync(files.a, served);
  const logger = createLogger("info", { write: (line: string) => void lines.push(JSON.parse(line) as Line) });
  serving = await Serving.open(served, { now, log: servingLog(logger, undefined), debounceMs: 20, xSecret: FIXTURE_X_SECRET });
  serving.watch();
  server = await startTestServer(createApp({ serving, meter, now, checkResponses: true }), serving);
}, 60_000);

afterAll(async () => {
  await server?.close();
  serving?.close();
  meter?.close();
  admin?.close();
  if (work !== undefined) rmSync(work, { recursive: true, force: true });
});

/** Every scenario starts from snapshot a at the path, served, with nothing else in the folder. */
beforeEach(async () => {
  rmSync(served, { recursive: true, force: true });
  publish(files.a);
  await until(() => serving.contentHash === hashes.a, "snapshot a served");
  await settled();
});

/** Publishes as an operator should: a copy in the same folder, renamed over the served path. */
function publish(file: string): void {
  const staged = join(folder, "staged.db");
  copyFileSync(file, staged);
  renameSync(staged, served);
}

function until(condition: () => boolean, what: string): Promise<void> {
  return untilLogged(condition, what, () => lines.map((line) => line.msg).join("\n"));
}

/** Waits until serving has taken in the last change (no swap in progress, the debounce passed). */
async function settled(): Promise<void> {
  await new Promise((resolve) => setTimeout(resolve, 100));
  await serving.swap();
}

/** Long enough for any further change event to have been taken in (the debounce is 20 ms). */
function quiet(): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, 300));
}

async function _call(app: H3, request: Request): Promise<{ status: number; text: string }> {
  const init: RequestInit = { method: request.method, headers: { authorization: `Bearer ${key}`, ...(request.body === undefined ? {} : { "content-type": "application/json" }) } };
  if (request.body !== undefined) init.body = request.body;
  const response = await app.request(request.path, init);
  return { status: response.status, text: await response.text() };
}

/** The part of an answer fixed by the snapshot: `data`, or the error's code (meta is per request). */
function _essence(answer: { status: number; text: string }): string {
  const body = JSON.parse(answer.text) as { data?: unknown; error?: { code: string } };
  return JSON.stringify({ status: answer.status, data: body.data ?? null, error: body.error?.code ?? null });
}

interface Load { answers: number; wrong: string[]; hashes: Set<string> }

/**
 * LOAD requests over CLIENTS connections through the real listener; `change` runs once a quarter
 * of them are answered. Each answer must be whole and equal what the snapshot it names gives.
 */
async function underLoad(change: () => unknown | Promise<unknown>): Promise<Load> {
  const load: Load = { answers: 0, wrong: [], hashes: new Set() };
  let sent = 0;
  let changed: Promise<unknown> | undefined;
  const client = async () => {
    while (sent < LOAD) {
      const index = sent++ % REQUESTS.length;
      const request = REQUESTS[index]!;
      if (changed === undefined && sent >= LOAD / 4) changed = Promise.resolve(change());
      try {
        const response = await fetch(server.url + request.path, {
          method: request.method, body: request.body,
          headers: { authorization: `Bearer ${key}`, ...(request.body === undefined ? {} : { "content-type": "application/json" }) },
          signal: AbortSignal.timeout(5_000),
        });
        const text = await response.text();
        const hash = response.headers.get(SNAPSHOT_HEADER) ?? "(none)";
        load.hashes.add(hash);
        const essence = _essence({ status: response.status, text });
        if (expected.get(hash)?.[index] !== essence) load.wrong.push(`${request.method} ${request.path} from ${hash}: ${essence.slice(0, 200)}`);
      } catch (error) {
        load.wrong.push(`${request.method} ${request.path}: ${String(error)}`);
      }
      load.answers++;
    }
  };
  await Promise.all(Array.from({ length: CLIENTS }, client));
  await changed;
  return load;
}

/** Rewrites the file in place as `cp` does: opened with truncation, written in chunks while the server runs. */
async function cpInPlace(from: string, to: string): Promise<void> {
  const bytes = readFileSync(from);
  const fd = openSync(to, "w");
  try {
    for (let offset = 0; offset < bytes.length; offset += 32 * 1024) {
      writeSync(fd, bytes, offset, Math.min(32 * 1024, bytes.length - offset), offset);
      await new Promise((resolve) => setImmediate(resolve));
    }
  } finally {
    closeSync(fd);
  }
}

function refusals(since: number): Line[] {
  return lines.slice(since).filter((line) => line.event === "snapshot_refused");
}

function noPrivateCopiesLeft(): void {
  expect(readdirSync(folder).filter((name) => name.startsWith(".cei-serve-"))).toEqual([]);
}

describe("a served file changed in place, under load", () => {
  it("cp of another snapshot over the served path: every answer whole, from a or b; b then served", async () => {
    const load = await underLoad(() => cpInPlace(files.b, served));
    await until(() => serving.contentHash === hashes.b, "the rewritten file swapped in");
    expect(load.wrong).toEqual([]);
    expect(load.answers).toBe(LOAD);
    expect((await underLoad(() => undefined)).hashes).toEqual(new Set([hashes.b]));
    await settled();
    noPrivateCopiesLeft();
  }, 60_000);

  it("truncated to 4,096 bytes: every answer from a; refused with one log line", async () => {
    const logged = lines.length;
    const load = await underLoad(() => truncateSync(served, 4096));
    await until(() => refusals(logged).length > 0, "the refusal");
    await quiet();
    expect(load.wrong).toEqual([]);
    expect(load.hashes).toEqual(new Set([hashes.a]));
    expect(refusals(logged)).toHaveLength(1);
    expect(refusals(logged)[0]).toMatchObject({ level: 40, file: served, snapshot: hashes.a });
    expect(serving.contentHash).toBe(hashes.a);
  }, 60_000);

  it("random bytes written in place: every answer from a; refused with one log line", async () => {
    const logged = lines.length;
    const load = await underLoad(() => {
      const fd = openSync(served, "r+");
      writeSync(fd, randomBytes(64 * 1024), 0, 64 * 1024, 4096);
      closeSync(fd);
    });
    await until(() => refusals(logged).length > 0, "the refusal");
    await quiet();
    expect(load.wrong).toEqual([]);
    expect(load.hashes).toEqual(new Set([hashes.a]));
    expect(refusals(logged)).toHaveLength(1);
    expect(refusals(logged)[0]!.reason).toMatch(/damaged|malformed|not a SQLite database|not a cei snapshot/);
    expect(serving.contentHash).toBe(hashes.a);
  }, 60_000);
});

describe("a path that is not a regular file", () => {
  /** /readyz, timed: it must answer while the path holds something that is not a file. */
  async function readyz(): Promise<{ status: number; ms: number }> {
    const started = performance.now();
    const response = await fetch(`${server.url}/readyz`, { signal: AbortSignal.timeout(5_000) });
    await response.text();
    return { status: response.status, ms: performance.now() - started };
  }

  const cases: Array<[string, () => void, RegExp]> = [
    ["a FIFO renamed over the path", () => {
      const fifo = join(folder, "fifo");
      execFileSync("mkfifo", [fifo]);
      renameSync(fifo, served);
    }, /is a FIFO, not a snapshot file/],
    ["a folder at the path", () => {
      rmSync(served);
      mkdirSync(served);
    }, /is a directory, not a snapshot file/],
    ["a symlink to /dev/zero renamed over the path", () => {
      const link = join(folder, "zero");
      symlinkSync("/dev/zero", link);
      renameSync(link, served);
    }, /is a device, not a snapshot file/],
  ];
  for (const [what, make, reason] of cases) {
    it(`${what}: requests and /readyz keep answering from a; refused with one log line`, async () => {
      const logged = lines.length;
      const load = await underLoad(make);
      await until(() => refusals(logged).length > 0, "the refusal");
      // An explicit swap (SIGHUP) settles too, within a short bound, without opening the path.
      const swapStarted = performance.now();
      expect(await serving.swap()).toBe("refused");
      expect(performance.now() - swapStarted).toBeLessThan(2_000);
      const ready = await readyz();
      expect(ready.status).toBe(200);
      expect(ready.ms).toBeLessThan(2_000);
      expect(load.wrong).toEqual([]);
      expect(load.hashes).toEqual(new Set([hashes.a]));
      expect(refusals(logged)[0]).toMatchObject({ level: 40, event: "snapshot_refused", file: served, snapshot: hashes.a });
      expect(refusals(logged)[0]!.reason).toMatch(reason);
      expect(serving.contentHash).toBe(hashes.a);
    }, 60_000);
  }
});

describe("at start-up", () => {
  const cases: Array<[string, (path: string) => void, RegExp]> = [
    ["a FIFO", (path) => execFileSync("mkfifo", [path]), /is a FIFO, not a snapshot file/],
    ["a folder", (path) => mkdirSync(path), /is a directory, not a snapshot file/],
    ["a symlink to /dev/zero", (path) => symlinkSync("/dev/zero", path), /is a device, not a snapshot file/],
    ["no file", () => undefined, /no such file/],
  ];
  for (const [what, make, reason] of cases) {
    it(`${what} at the path is a clear start-up error, at once`, async () => {
      const path = join(work, `startup-${what.replaceAll(/\W/g, "-")}.db`);
      make(path);
      const started = performance.now();
      await expect(Serving.open(path, { now, log: () => undefined })).rejects.toThrow(reason);
      expect(performance.now() - started).toBeLessThan(2_000);
      rmSync(path, { recursive: true, force: true });
    });
  }
});
