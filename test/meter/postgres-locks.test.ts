// One key's rows locked by a transaction outside cei (an operator's psql session, a stuck job):
// that key's requests are refused within the request's time bound, having written nothing, and
// every other key's requests, in the same batches, are not held up by it.
import pg from "pg";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { openKeyStore } from "../../server/meter/open.ts";
import { METER_WAIT_LIMIT_MS, MeterBusyError, type KeyRecord } from "../../server/meter/interface.ts";
import { PostgresMeter } from "../../server/meter/postgres/meter.ts";
import { newPostgresDatabase } from "../_support/meter-backends.ts";

const NOW = Date.UTC(2026, 2, 1, 12, 0, 5);

describe("a key whose rows another transaction holds", () => {
  let url: string;
  let meter: PostgresMeter;
  let outsider: pg.Client;
  let locked: KeyRecord;
  let other: KeyRecord;

  beforeEach(async () => {
    url = await newPostgresDatabase();
    const store = await openKeyStore(url, { mustExist: false, now: () => NOW });
    const a = await store.create({ tier: "pro", credits: 100 }, NOW);
    const b = await store.create({ tier: "pro", credits: 100 }, NOW);
    await store.close();
    meter = await PostgresMeter.open(url, { now: () => NOW });
    locked = (await meter.findKey(a.key))!;
    other = (await meter.findKey(b.key))!;
    // One request each first, so that both keys have a window row.
    for (const key of [locked, other]) await settleOne(key);
    outsider = new pg.Client({ connectionString: url });
    await outsider.connect();
  });

  afterEach(async () => {
    await outsider.end().catch(() => undefined);
    await meter.close();
  });

  const settleOne = (key: KeyRecord) => meter.settle({
    key, operation: "get_project", requestId: `req_${Math.random()}`,
    work: () => ({ value: "answer", cost: 1 }),
  });

  async function state(keyId: string): Promise<{ credits: number; count: number; charges: number }> {
    const client = new pg.Client({ connectionString: url });
    await client.connect();
    try {
      const { rows } = await client.query(
        `SELECT (SELECT credits FROM balances WHERE key_id = $1)::int AS credits,
                (SELECT request_count FROM rate_windows WHERE key_id = $1) AS count,
                (SELECT count(*) FROM ledger WHERE key_id = $1 AND kind = 'charge')::int AS charges`, [keyId]);
      return rows[0];
    } finally {
      await client.end();
    }
  }

  async function timed<T>(run: () => Promise<T>): Promise<{ ms: number; result: T | Error }> {
    const started = performance.now();
    const result = await run().catch((error: Error) => error);
    return { ms: performance.now() - started, result };
  }

  it.each([
    ["its window row", "SELECT 1 FROM rate_windows WHERE key_id = $1 FOR UPDATE"],
    ["its balance row", "SELECT 1 FROM balances WHERE key_id = $1 FOR UPDATE"],
    ["its key row", "SELECT 1 FROM keys WHERE id = $1 FOR UPDATE"],
    ["all of them", "SELECT 1 FROM keys k JOIN balances b ON b.key_id = k.id JOIN rate_windows w ON w.key_id = k.id WHERE k.id = $1 FOR UPDATE"],
  ])("locked by %s: refused within the bound, nothing written; another key's requests are not held up", async (_, lock) => {
    const before = await state(locked.id);
    await outsider.query("BEGIN");
    await outsider.query(lock, [locked.id]);

    // Both keys' requests go out in the same turns, so in the same batches.
    const lockedRun = timed(() => settleOne(locked));
    const others = await Promise.all(Array.from({ length: 20 }, () => timed(() => settleOne(other))));
    const lockedResult = await lockedRun;

    for (const run of others) {
      expect(run.result).toMatchObject({ outcome: "answered", charge: { result: "charged" } });
      // A few milliseconds on an idle machine; the bound leaves room for a loaded CI runner, and is
      // far from the 2 s a lock wait would cost.
      expect(run.ms).toBeLessThan(250);
    }
    expect(lockedResult.result).toBeInstanceOf(MeterBusyError);
    expect(lockedResult.ms).toBeGreaterThanOrEqual(METER_WAIT_LIMIT_MS - 100);
    expect(lockedResult.ms).toBeLessThan(METER_WAIT_LIMIT_MS + 300);
    await outsider.query("ROLLBACK");

    // The refused request left the key as it was (a charge locked out after admission keeps its count).
    const after = await state(locked.id);
    expect(after.credits).toBe(before.credits);
    expect(after.charges).toBe(before.charges);
    // Free again: the next request is answered and charged at once.
    const next = await timed(() => settleOne(locked));
    expect(next.result).toMatchObject({ outcome: "answered", charge: { result: "charged", credits_remaining: before.credits - 1 } });
    expect(next.ms).toBeLessThan(250);
  });
});
