// Graceful shutdown of a real `cei serve` process under load: SIGTERM (and SIGINT) while several
// keep-alive connections send requests and one request's body is still arriving. Every request
// written before the signal gets a complete answer, every 200 has its ledger row, the meter is
// closed cleanly (its WAL checkpointed away) and the process exits 0 well within its bound.
import Database from "better-sqlite3";
import { existsSync, mkdtempSync, rmSync } from "node:fs";
import { Agent, request as httpRequest } from "node:http";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { performance } from "node:perf_hooks";
import { setTimeout as sleep } from "node:timers/promises";
import { afterAll, beforeAll, expect, it, onTestFinished } from "vitest";
import { listenDefaults } from "../../server/listen-limits.ts";
import { openMeterDatabase } from "../../server/meter/sqlite/database.ts";
import { createKey } from "../../server/meter/sqlite/keys.ts";
import { RawConnection } from "../_support/raw-http.ts";
import { fixtureSnapshot } from "./_http.ts";
import { startCeiServe, type ChildServer } from "../_support/processes.ts";

const CONNECTIONS = 8;
/** Operations without a freshness bound: the child serves the fixture snapshot on the real clock. */
const PATHS = ["/v1/projects/aurora-swap", "/v1/people/search?query=alice", "/v1/events/berlin-node-day"];

let dir: string;
let snapshot: string;
let meterFile: string;
let key: string;
beforeAll(async () => {
  snapshot = await fixtureSnapshot();
  dir = mkdtempSync(join(tmpdir(), "cei-shutdown-"));
  meterFile = join(dir, "meter.db");
  const admin = openMeterDatabase(meterFile);
  key = createKey(admin, { tier: "internal", credits: 1_000_000 }, Date.now()).key;
  admin.close();
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

interface Sent {
  /** performance.now() when the whole request had been handed to the OS; undefined if it never was. */
  writtenAt?: number;
  status?: number;
  requestId?: string;
  error?: string;
}

function send(agent: Agent, url: string, path: string): Promise<Sent> {
  const sent: Sent = {};
  return new Promise((resolve) => {
    const req = httpRequest(url + path, { agent, headers: { authorization: `Bearer ${key}` } }, (res) => {
      const chunks: Buffer[] = [];
      res.on("data", (chunk: Buffer) => chunks.push(chunk));
      res.on("end", () => {
        sent.status = res.statusCode;
        sent.requestId = JSON.parse(Buffer.concat(chunks).toString()).meta.request_id;
        resolve(sent);
      });
      res.on("error", (error) => resolve({ ...sent, error: error.message }));
    });
    req.on("finish", () => (sent.writtenAt = performance.now()));
    req.on("error", (error) => resolve({ ...sent, error: error.message }));
    req.end();
  });
}

async function startServe(): Promise<ChildServer> {
  const child = await startCeiServe(snapshot, meterFile);
  onTestFinished(() => child.stop("SIGKILL"));
  return child;
}

it("SIGTERM under load: every request written before it is answered and charged, the meter closes, exit 0", async () => {
  const child = await startServe();
  const agent = new Agent({ keepAlive: true, maxSockets: CONNECTIONS });
  onTestFinished(() => agent.destroy());
  const results: Sent[] = [];
  let okCount = 0;
  const loop = async (index: number) => {
    for (let i = index; ; i += CONNECTIONS) {
      const sent = await send(agent, child.url, PATHS[i % PATHS.length]!);
      results.push(sent);
      if (sent.error !== undefined) return;
      if (sent.status === 200) okCount += 1;
    }
  };
  const loops = Promise.all(Array.from({ length: CONNECTIONS }, (_, index) => loop(index)));

  // A request still arriving when the signal comes: its body is completed only during the drain.
  const slow = await RawConnection.open(child.url);
  onTestFinished(() => slow.destroy());
  const body = JSON.stringify({ q: "btc" });
  await slow.write(`POST /v1/search HTTP/1.1\r\nHost: test\r\nAuthorization: Bearer ${key}\r\nContent-Type: application/json\r\nContent-Length: ${body.length}\r\n\r\n{"q"`);

  while (okCount < 100) await sleep(5);
  const signalAt = performance.now();
  child.child.kill("SIGTERM");
  await sleep(200);
  await slow.write(body.slice(4));
  const slowAnswer = await slow.nextResponse();
  await loops;
  const { code } = await child.exited;
  const exitMs = performance.now() - signalAt;

  expect(code).toBe(0);
  expect(exitMs).toBeLessThan(listenDefaults.shutdownTimeoutMs);
  expect(child.stderr()).toContain("cei: stopped");
  if (slowAnswer === "closed") throw new Error("the request in flight at the signal was not answered");
  expect(slowAnswer.status).toBe(200);
  expect(slowAnswer.headers.connection).toBe("close");

  const writtenBefore = results.filter((sent) => sent.writtenAt !== undefined && sent.writtenAt < signalAt);
  expect(writtenBefore.length).toBeGreaterThanOrEqual(100);
  for (const sent of writtenBefore) expect(sent).toMatchObject({ status: 200, requestId: expect.any(String) });

  const charged = [...results.filter((sent) => sent.status === 200).map((sent) => sent.requestId!), JSON.parse(slowAnswer.body).meta.request_id];
  expect(existsSync(`${meterFile}-wal`)).toBe(false);
  const meter = new Database(meterFile, { readonly: true });
  onTestFinished(() => void meter.close());
  const ledgered = new Set(meter.prepare<[], string>("SELECT request_id FROM ledger WHERE kind = 'charge'").pluck().all());
  for (const requestId of charged) expect(ledgered.has(requestId)).toBe(true);
});

it("SIGINT with an idle keep-alive connection: closed at once, exit 0", async () => {
  const child = await startServe();
  const idle = await RawConnection.open(child.url);
  onTestFinished(() => idle.destroy());
  await idle.write(`GET /v1/projects/aurora-swap HTTP/1.1\r\nHost: test\r\nAuthorization: Bearer ${key}\r\n\r\n`);
  expect(await idle.nextResponse()).toMatchObject({ status: 200, headers: { connection: "keep-alive" } });
  const signalAt = performance.now();
  child.child.kill("SIGINT");
  await idle.closed;
  const { code } = await child.exited;
  expect(code).toBe(0);
  expect(performance.now() - signalAt).toBeLessThan(2_000);
});
