// No unbilled response: a `cei serve` process under load is killed with SIGKILL at a different
// moment in each of 8 rounds, all rounds on one meter file. After every crash the file passes
// PRAGMA integrity_check, every 200 the client received has its ledger row (matched by
// meta.request_id), and balance + charges still equal the opening credits. The operations used
// have no freshness bound, since the child serves the fixture snapshot on the real clock.
import Database from "better-sqlite3";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { setTimeout as sleep } from "node:timers/promises";
import { afterAll, beforeAll, expect, it } from "vitest";
import { openMeterDatabase } from "../../server/meter/sqlite/database.ts";
import { createKey } from "../../server/meter/sqlite/keys.ts";
import { fixtureSnapshot } from "./_http.ts";
import { keepAliveClient, startCeiServe } from "../_support/processes.ts";

const CREDITS = 1_000_000;
const CONCURRENCY = 24;
/** ms of load after the first 200 of a round before the kill: fixed, so every run is the same test. */
const KILL_DELAYS_MS = [0, 140, 35, 230, 5, 95, 180, 60];
/** get_project (1 credit), search_people (2), get_event (1). */
const PATHS = ["/v1/projects/aurora-swap", "/v1/people/search?query=alice", "/v1/events/berlin-node-day"];

let dir: string;
let snapshot: string;
let meterFile: string;
let key: { id: string; key: string };
beforeAll(async () => {
  snapshot = await fixtureSnapshot();
  dir = mkdtempSync(join(tmpdir(), "cei-crash-"));
  meterFile = join(dir, "meter.db");
  const admin = openMeterDatabase(meterFile);
  key = createKey(admin, { tier: "internal", credits: CREDITS }, Date.now());
  admin.close();
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** Loads the server until it dies; returns the request ids of the 200s and how many loops a crash ended. */
async function loadUntilKilled(url: string, killAfterFirstOk: () => Promise<void>): Promise<{ ok: string[]; endedByCrash: number }> {
  const client = keepAliveClient(url, CONCURRENCY);
  const ok: string[] = [];
  let firstOk!: () => void;
  const first = new Promise<void>((resolve) => { firstOk = resolve; });
  let endedByCrash = 0;
  const loop = async (index: number) => {
    for (let i = index; ; i += CONCURRENCY) {
      try {
        const answer = await client.get(PATHS[i % PATHS.length]!, key.key);
        if (answer.status !== 200) throw new Error(`unexpected ${answer.status}: ${JSON.stringify(answer.body)}`);
        ok.push(answer.body.meta.request_id);
        firstOk();
      } catch (error) {
        if (!(error instanceof Error) || !/ECONNRESET|ECONNREFUSED|socket hang up|EPIPE/.test(`${(error as NodeJS.ErrnoException).code} ${error.message}`)) throw error;
        endedByCrash += 1;
        return;
      }
    }
  };
  const loops = Promise.all(Array.from({ length: CONCURRENCY }, (_, index) => loop(index)));
  // A server that never answers 200 fails the round instead of leaving it waiting.
  await Promise.race([first, loops.then(() => { throw new Error("the load ended before any 200"); })]);
  await killAfterFirstOk();
  await loops;
  client.close();
  return { ok, endedByCrash };
}

it("after each of 8 SIGKILLs under load: integrity ok, every answered 200 in the ledger, credits reconcile", async () => {
  const answered = new Set<string>();
  for (const [round, delay] of KILL_DELAYS_MS.entries()) {
    const server = await startCeiServe(snapshot, meterFile);
    const { ok, endedByCrash } = await loadUntilKilled(server.url, async () => {
      await sleep(delay);
      await server.stop("SIGKILL");
    });
    expect((await server.exited).signal, `round ${round}`).toBe("SIGKILL");
    // The kill came under load: every one of the client's loops still had a request outstanding.
    expect(endedByCrash, `round ${round}`).toBe(CONCURRENCY);
    expect(ok.length, `round ${round}`).toBeGreaterThan(0);
    for (const id of ok) answered.add(id);

    const db = new Database(meterFile, { fileMustExist: true });
    try {
      expect(db.pragma("integrity_check", { simple: true }), `round ${round}`).toBe("ok");
      const charges = db.prepare<[string], { request_id: string; delta: number }>(
        "SELECT request_id, delta FROM ledger WHERE key_id = ? AND kind = 'charge'",
      ).all(key.id);
      const ledgerIds = new Set(charges.map((row) => row.request_id));
      const unbilled = [...answered].filter((id) => !ledgerIds.has(id));
      expect(unbilled, `round ${round}: 200s without a ledger row`).toEqual([]);
      // A charge may be committed for a request whose answer the crash swallowed, never the reverse.
      expect(charges.length).toBeGreaterThanOrEqual(answered.size);
      const balance = db.prepare<[string], number>("SELECT credits FROM balances WHERE key_id = ?").pluck().get(key.id)!;
      const spent = charges.reduce((sum, row) => sum - row.delta, 0);
      expect(balance + spent, `round ${round}`).toBe(CREDITS);
    } finally {
      db.close();
    }
  }
  expect(answered.size).toBeGreaterThan(KILL_DELAYS_MS.length);
}, 90_000);
