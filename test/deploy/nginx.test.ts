// The kit's nginx (deploy/nginx/cei.conf) in front of three real `cei serve` readers sharing a
// PostgreSQL meter, over real TLS: one key is always answered by one reader (so a rolling publish
// never flips a key between snapshots), the proxy logs each answer's x-service-request-id, cei's own
// answers pass untouched, a hung reader (SIGSTOP) costs its requests a 504 in cei's envelope, never
// a resend and never a charge, and is taken out of rotation; a reader that is down is skipped (a
// refused connection is retried on another, charged once); with none left, a 502 in cei's envelope.
// The longer fixed-rate scenario is scripts/nginx-hung-reader.ts, which .ci/run runs.
import { copyFileSync, mkdirSync, renameSync } from "node:fs";
import { join } from "node:path";
import pg from "pg";
import { afterAll, afterEach, beforeAll, expect, it } from "vitest";
import { REQUEST_ID_PATTERN } from "../../server/envelope.ts";
import { openKeyStore } from "../../server/meter/open.ts";
import { compileFixture, compileSample, SAMPLE_PATHS } from "../_support/fixtures.ts";
import { newPostgresDatabase } from "../_support/meter-backends.ts";
import { startCeiServe, type ChildServer } from "../_support/processes.ts";
import { testTempDir } from "../_support/temp.ts";
import { until } from "../_support/until.ts";
import { startKitNginx as startNginx, type KitNginx, type ProxyAnswer } from "../_support/kit-nginx.ts";

const PROJECT = SAMPLE_PATHS[0]!;
const startKitNginx = (readerUrls: string[]) => startNginx(testTempDir("cei-nginx-"), readerUrls);

let meter: string;
let view: pg.Client;
let readers: ChildServer[];
let servedPaths: string[];
let keys: Array<{ id: string; key: string }>;
/** Which reader (by URL host) answers each key, as the proxy routes it. */
let readerOfKey: Map<string, string>;
let proxy: KitNginx | undefined;

beforeAll(async () => {
  meter = await newPostgresDatabase();
  const store = await openKeyStore(meter, { mustExist: false });
  keys = [];
  for (let i = 0; i < 12; i++) keys.push(await store.create({ tier: "internal", credits: 1_000 }, Date.now()));
  await store.close();
  const snapshot = await compileSample(new Date());
  servedPaths = [0, 1, 2].map((index) => {
    const folder = join(testTempDir(`cei-reader-${index}-`), "snapshots");
    mkdirSync(folder);
    copyFileSync(snapshot, join(folder, "current.db"));
    return join(folder, "current.db");
  });
  readers = await Promise.all(servedPaths.map((path) => startCeiServe(path, meter, ["--trust-proxy", "127.0.0.1", "--max-connections-per-address", "512"])));
  view = new pg.Client({ connectionString: meter });
  await view.connect();
}, 120_000);

afterEach(async () => {
  await proxy?.stop();
  proxy = undefined;
});

afterAll(async () => {
  for (const reader of readers ?? []) {
    reader.child.kill("SIGCONT");
    await reader.stop("SIGKILL");
  }
  await view?.end();
});

/** The meter's charges so far, oldest first. */
const charges = async () => (await view.query<{ request_id: string }>("SELECT request_id FROM ledger WHERE kind = 'charge' ORDER BY seq")).rows;

/** The proxy's own error, in cei's envelope, with its own request id. */
function expectProxyError(answer: ProxyAnswer, message: RegExp): void {
  const body = JSON.parse(answer.text) as { error: { code: string; message: string }; meta: { request_id: string; credits_used: number } };
  expect(body).toEqual({ error: { code: "INTERNAL_ERROR", message: expect.stringMatching(message) }, meta: { request_id: expect.stringMatching(/^proxy_[0-9a-f]{32}$/), credits_used: 0 } });
  expect(body.meta.request_id).toMatch(REQUEST_ID_PATTERN);
  expect(answer.headers["x-service-request-id"]).toBe(body.meta.request_id);
  expect(answer.headers["content-type"]).toBe("application/json; charset=utf-8");
  expect(answer.headers["cache-control"]).toBe("no-store");
}

const auth = (key: string) => ({ authorization: `Bearer ${key}` });
const hostOf = (reader: ChildServer) => new URL(reader.url).host;

it("routes each key to one reader; logs every answer's request id; passes cei's own answers untouched", async () => {
  proxy = await startKitNginx(readers.map((reader) => reader.url));
  for (const { key } of keys) {
    for (let i = 0; i < 3; i++) {
      const answer = await proxy.get(PROJECT, auth(key));
      expect(answer.status).toBe(200);
    }
  }
  // nginx writes a line after it has sent the answer.
  await until(() => proxy!.accessLog().length >= 36, "36 access log lines", () => proxy!.errorLog());
  const log = proxy.accessLog();
  expect(log).toHaveLength(36);
  readerOfKey = new Map();
  keys.forEach(({ key }, index) => {
    const upstreams = new Set(log.slice(index * 3, index * 3 + 3).map((line) => line.upstream));
    expect(upstreams.size, `key ${index}`).toBe(1);
    readerOfKey.set(key, String([...upstreams][0]));
  });
  // Spread over the readers, not all on one.
  expect(new Set(readerOfKey.values()).size).toBeGreaterThanOrEqual(2);

  // The request id of every answer is in the proxy's log, beside nginx's own.
  const answer = await proxy.get(PROJECT, auth(keys[0]!.key));
  const id = answer.headers["x-service-request-id"];
  await until(() => proxy!.accessLog().some((entry) => entry.request_id === id), "the answer's access log line", () => proxy!.errorLog());
  const line = proxy.accessLog().find((entry) => entry.request_id === id)!;
  expect(line).toMatchObject({ status: 200, request_id: answer.headers["x-service-request-id"], credits_used: "1", upstream_status: "200" });
  expect(line.proxy_request_id).toMatch(/^[0-9a-f]{32}$/);
  // cei's own error, as cei wrote it.
  const refused = await proxy.get(PROJECT, auth("cei_" + "x".repeat(40)));
  expect(refused.status).toBe(401);
  expect(JSON.parse(refused.text)).toMatchObject({ error: { code: "INVALID_API_KEY" }, meta: { request_id: refused.headers["x-service-request-id"] } });
  expect(refused.headers["x-service-request-id"]).toMatch(/^req_/);

  // A rolling publish that has reached one reader: each key still sees one snapshot.
  const before = answer.headers["x-service-snapshot"];
  const target = readers.findIndex((reader) => [...readerOfKey.values()].includes(hostOf(reader)));
  const staged = join(servedPaths[target]!, "..", "next.db");
  const previous = join(servedPaths[target]!, "..", "previous.db");
  copyFileSync(servedPaths[target]!, previous);
  copyFileSync(await compileFixture("valid"), staged);
  renameSync(staged, servedPaths[target]!);
  const swaps = () => (readers[target]!.stderr().match(/"event":"snapshot_swapped"/g) ?? []).length;
  await until(() => swaps() === 1, "the swap", () => readers[target]!.stderr());
  for (const { key } of keys) {
    const seen = new Set<string>();
    for (let i = 0; i < 4; i++) seen.add(String((await proxy.get("/v1/key", auth(key))).headers["x-service-snapshot"]));
    expect(seen.size).toBe(1);
    expect([...seen][0] !== before).toBe(readerOfKey.get(key) === hostOf(readers[target]!));
  }
  // Rolled back, for the next tests.
  renameSync(previous, servedPaths[target]!);
  await until(() => swaps() === 2, "the swap back", () => readers[target]!.stderr());
}, 60_000);

it("a hung reader: its requests get a 504 in cei's envelope after 5 s, are never resent nor charged, and it leaves the rotation", async () => {
  proxy = await startKitNginx(readers.map((reader) => reader.url));
  // A reader that some key is routed to: 12 random keys leave one of three readers without any
  // about once in a hundred runs.
  const hung = readers.find((reader) => [...readerOfKey.values()].includes(hostOf(reader)))!;
  const victims = keys.filter(({ key }) => readerOfKey.get(key) === hostOf(hung));
  const others = keys.filter(({ key }) => readerOfKey.get(key) !== hostOf(hung));
  expect(victims.length).toBeGreaterThan(0);
  const victim = victims[0]!;
  const chargesBefore = (await charges()).length;

  hung.child.kill("SIGSTOP");
  let resumed = false;
  try {
    const timedOut = await Promise.all([0, 1, 2].map(() => proxy!.get(PROJECT, auth(victim.key))));
    for (const answer of timedOut) {
      expect(answer.status).toBe(504);
      expect(answer.ms).toBeGreaterThan(4_500);
      expectProxyError(answer, /504 Gateway Timeout/);
    }
    // Not resent: each went to the hung reader alone.
    await until(() => proxy!.accessLog().filter((line) => line.status === 504).length === 3, "three 504 lines", () => proxy!.errorLog());
    const lines = proxy.accessLog().filter((line) => line.status === 504);
    expect(lines.map((line) => [line.upstream, line.upstream_status])).toEqual(Array(3).fill([hostOf(hung), "504"]));
    // Out of the rotation: its keys are answered by another reader at once; the others never noticed.
    for (const { key } of [victim, ...others.slice(0, 3)]) {
      const answer = await proxy.get(PROJECT, auth(key));
      expect(answer.status).toBe(200);
      expect(answer.ms).toBeLessThan(2_000);
    }
  } finally {
    hung.child.kill("SIGCONT");
    resumed = true;
  }
  expect(resumed).toBe(true);
  // Resumed, it finds the three requests' connections closed: logged, neither charged nor answered.
  await until(() => (hung.stderr().match(/"reason":"client_closed"/g) ?? []).length >= 3, "three client_closed lines", () => hung.stderr().split("\n").filter((line) => line.includes(victim.id) || line.includes('"level":5')).join("\n"));
  const closed = hung.stderr().split("\n").filter((line) => line.includes('"reason":"client_closed"')).map((line) => JSON.parse(line) as Record<string, unknown>);
  expect(closed.map((line) => [line.status, line.credits_used, line.key_id])).toEqual(Array(3).fill([499, 0, victim.id]));
  const ledger = await charges();
  const charged = new Set(ledger.map((row) => row.request_id));
  for (const line of closed) expect(charged.has(String(line.request_id))).toBe(false);
  expect(ledger.length - chargesBefore).toBe(4);
}, 60_000);

it("a reader that is down is skipped (a refused connection retried once elsewhere, charged once); none left: a 502 in cei's envelope", async () => {
  proxy = await startKitNginx(readers.map((reader) => reader.url));
  const down = readers[2]!;
  const itsKeys = keys.filter(({ key }) => readerOfKey.get(key) === hostOf(down));
  await down.stop("SIGTERM");
  const before = (await charges()).length;
  const answers = [];
  for (const { key } of itsKeys.length > 0 ? itsKeys : keys.slice(0, 2)) answers.push(await proxy.get(PROJECT, auth(key)));
  expect(answers.map((answer) => answer.status)).toEqual(answers.map(() => 200));
  const ids = answers.map((answer) => answer.headers["x-service-request-id"]);
  const added = (await charges()).slice(before);
  expect(added.map((row) => row.request_id).sort()).toEqual([...ids].sort());

  await Promise.all(readers.slice(0, 2).map((reader) => reader.stop("SIGTERM")));
  const none = await proxy.get(PROJECT, auth(keys[0]!.key));
  expect(none.status).toBe(502);
  expectProxyError(none, /502 Bad Gateway/);
}, 60_000);
