// Hot swap (decision 23) through the real HTTP server: two snapshots that differ in one project's
// name, published by atomic rename over the served path 20 times while several connections send
// requests without pause. Every response names its snapshot, and its body is that snapshot's.
import { copyFileSync, mkdtempSync, openSync, renameSync, rmSync, unlinkSync, writeFileSync, writeSync, closeSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import Database from "better-sqlite3";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createApp, SNAPSHOT_HEADER } from "../../server/app.ts";
import type { RunningServer } from "../../server/listen.ts";
import { openMeterDatabase } from "../../server/meter/sqlite/database.ts";
import { createKey } from "../../server/meter/sqlite/keys.ts";
import { SqliteMeter } from "../../server/meter/sqlite/meter.ts";
import { Serving } from "../../server/serving.ts";
import { compileSnapshotPair } from "../_support/snapshot-pair.ts";
import { until as untilLogged } from "../_support/until.ts";
import { FIXTURE_NOW, startTestServer } from "../_support/server.ts";

const PROJECT = "/v1/projects/aurora-swap";
let work: string;
let files: { a: string; b: string };
let names: Record<string, string>;
let hashes: { a: string; b: string };
let served: string;
let serving: Serving;
let meter: SqliteMeter;
let admin: Database.Database;
let server: RunningServer;
let key: string;
const logs: string[] = [];

beforeAll(async () => {
  work = mkdtempSync(join(tmpdir(), "cei-swap-"));
  ({ files, hashes } = await compileSnapshotPair(work));
  names = { [hashes.a]: "Aurora Swap", [hashes.b]: "Aurora Swap Two" };

  served = join(work, "served.db");
  copyFileSync(files.a, served);
  const now = () => FIXTURE_NOW;
  serving = await Serving.open(served, { now, log: (line) => logs.push(line), debounceMs: 20 });
  serving.watch();
  const meterFile = join(work, "meter.db");
  admin = openMeterDatabase(meterFile, { now });
  meter = SqliteMeter.open(meterFile, { now, synchronous: "NORMAL" });
  key = createKey(admin, { tier: "internal", credits: 10_000_000 }, FIXTURE_NOW).key;
  server = await startTestServer(createApp({ serving, meter, now, checkResponses: true }));
});

afterAll(async () => {
  await server?.close();
  serving?.close();
  meter?.close();
  admin?.close();
  if (work !== undefined) rmSync(work, { recursive: true, force: true });
});

function until(condition: () => boolean, what: string, timeoutMs = 5_000): Promise<void> {
  return untilLogged(condition, what, () => logs.join("\n"), timeoutMs);
}

/** Publishes as an operator does: a copy in the same folder, renamed over the served path. */
function publish(file: string): void {
  const staged = `${served}.staged`;
  copyFileSync(file, staged);
  renameSync(staged, served);
}

async function get(path: string, auth = true): Promise<{ status: number; snapshot: string | null; body: { data?: { name?: string } } }> {
  const response = await fetch(server.url + path, { headers: auth ? { authorization: `Bearer ${key}` } : {} });
  return { status: response.status, snapshot: response.headers.get(SNAPSHOT_HEADER), body: (await response.json()) as { data?: { name?: string } } };
}

describe("hot swap under load", () => {
  it("20 swaps back and forth: no failed request, no response mixing two snapshots", async () => {
    let running = true;
    const seen: Array<{ status: number; snapshot: string | null; name: string | undefined }> = [];
    const errorsNamed: Array<string | null> = [];
    const client = async (index: number) => {
      for (let i = 0; running; i++) {
        // One in ten requests is an error (401 without a key, 404 on an unknown path): named too.
        if (i % 10 === index % 10) {
          const error = await get(i % 20 < 10 ? PROJECT : "/v1/nowhere", i % 20 < 10 ? false : true);
          expect([401, 404]).toContain(error.status);
          errorsNamed.push(error.snapshot);
          continue;
        }
        const response = await get(PROJECT);
        seen.push({ status: response.status, snapshot: response.snapshot, name: response.body.data?.name });
      }
    };
    const clients = Array.from({ length: 3 }, (_, index) => client(index));
    for (let swap = 1; swap <= 20; swap++) {
      const next = swap % 2 === 1 ? "b" : "a";
      const before = seen.length;
      publish(files[next]);
      await until(() => serving.contentHash === hashes[next], `swap ${swap}`);
      await until(() => seen.length > before + 3, `requests after swap ${swap}`);
    }
    running = false;
    await Promise.all(clients);

    expect(logs.filter((line) => line.includes("now serving"))).toHaveLength(20);
    expect(seen.length).toBeGreaterThan(200);
    expect(seen.filter((r) => r.status !== 200)).toEqual([]);
    expect(seen.filter((r) => r.snapshot === null || names[r.snapshot] !== r.name)).toEqual([]);
    expect(new Set(seen.map((r) => r.snapshot))).toEqual(new Set([hashes.a, hashes.b]));
    expect(errorsNamed.length).toBeGreaterThan(10);
    expect(errorsNamed.filter((hash) => hash !== hashes.a && hash !== hashes.b)).toEqual([]);
  }, 30_000);

  it("closes a replaced snapshot only once its in-flight requests are answered", async () => {
    const inFlight = serving.acquire();
    publish(inFlight.contentHash === hashes.a ? files.b : files.a);
    await until(() => serving.contentHash !== inFlight.contentHash, "the swap");
    expect(inFlight.db.open).toBe(true);
    expect(inFlight.db.prepare("SELECT name FROM projects WHERE slug = 'aurora-swap'").pluck().get()).toBe(names[inFlight.contentHash]);
    serving.release(inFlight);
    expect(inFlight.db.open).toBe(false);
  });
});

describe("a bad file is refused and the old snapshot keeps serving", () => {
  const corrupt = (file: string) => {
    const fd = openSync(file, "r+");
    // Past the schema pages: tables' b-tree pages overwritten with garbage.
    writeSync(fd, Buffer.alloc(8192, 0xa5), 0, 8192, 4096 * 6);
    closeSync(fd);
  };
  const cases: Array<[string, (file: string) => void, RegExp]> = [
    ["a text file", (file) => writeFileSync(file, "not a snapshot\n".repeat(100)), /not a SQLite database/],
    ["an empty database", (file) => new Database(file).close(), /not a cei snapshot/],
    ["another format version", (file) => {
      copyFileSync(files.a, file);
      const db = new Database(file);
      db.prepare("UPDATE manifest SET value = '999' WHERE key = 'format_version'").run();
      db.close();
    }, /format version 999/],
    ["a damaged file", (file) => {
      copyFileSync(files.b, file);
      corrupt(file);
    }, /damaged|malformed/],
  ];
  for (const [what, make, reason] of cases) {
    it(what, async () => {
      const before = serving.contentHash!;
      const logged = logs.length;
      const staged = `${served}.bad`;
      make(staged);
      renameSync(staged, served);
      await until(() => logs.length > logged, "the refusal");
      expect(logs.slice(logged)).toHaveLength(1);
      expect(logs[logged]).toMatch(/^cei serve: refused /);
      expect(logs[logged]).toMatch(reason);
      const response = await get(PROJECT);
      expect(response).toMatchObject({ status: 200, snapshot: before, body: { data: { name: names[before] } } });
    });
  }

  it("a missing file, then a good one published again", async () => {
    const before = serving.contentHash!;
    const logged = logs.length;
    unlinkSync(served);
    await until(() => logs.length > logged, "the refusal");
    expect(logs[logged]).toMatch(/^cei serve: refused .*no file at that path/);
    expect((await get(PROJECT)).snapshot).toBe(before);
    const other = before === hashes.a ? "b" : "a";
    publish(files[other]);
    await until(() => serving.contentHash === hashes[other], "the swap");
    expect(await get(PROJECT)).toMatchObject({ status: 200, snapshot: hashes[other], body: { data: { name: names[hashes[other]] } } });
  });
});
