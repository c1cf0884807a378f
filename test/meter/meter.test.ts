import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { openMeterDatabase } from "../../server/meter/sqlite/database.ts";
import { hashSecret } from "../../server/meter/secret.ts";
import { disableKey, revokeKey, setKeyTier } from "../../server/meter/sqlite/keys.ts";
import { SqliteMeter } from "../../server/meter/sqlite/meter.ts";
import { MeterBusyError, type Admission, type KeyRecord, type Settlement } from "../../server/meter/interface.ts";
import { scopes, tierRateLimits } from "../../server/policy.ts";
import { T0, answerOf, inspect, issueKey, settleRequest, tempDir, type TempDir } from "./_helpers.ts";

let dir: TempDir;
let file: string;
let clock: number;
let meter: SqliteMeter;
const now = () => clock;

beforeEach(() => {
  dir = tempDir();
  file = dir.file("meter.db");
  clock = T0;
  meter = SqliteMeter.open(file, { now });
});
afterEach(() => {
  meter.close();
  dir.remove();
});

function keyWith(credits: number, tier: "free" | "internal" = "free"): { secret: string; key: KeyRecord } {
  const created = issueKey(file, { credits, tier });
  return { secret: created.key, key: meter.findKey(created.key)! };
}

let requestCounter = 0;
/** A request as the pipeline settles it: charged `cost` when the balance its work is given covers it. */
function request(key: KeyRecord, cost = 2): Promise<Settlement<"ok" | "402">> {
  return settleRequest(meter, key, cost, `req_${++requestCounter}`);
}
/** A request that costs nothing (GET /v1/key): its admission. */
async function admit(key: KeyRecord): Promise<Admission> {
  return (await meter.settle({ key, operation: "get_key", requestId: `req_${++requestCounter}`, work: () => ({ value: "ok", cost: 0 }) })).admission;
}

function changeKey(change: (db: ReturnType<typeof openMeterDatabase>) => void): void {
  const db = openMeterDatabase(file);
  try {
    change(db);
  } finally {
    db.close();
  }
}

describe("Meter.findKey", () => {
  it("finds a key by its secret and nothing by any other string", () => {
    const { secret, key } = keyWith(10);
    expect(key).toEqual({
      id: expect.stringMatching(/^key_[0-9A-Za-z]{16}$/), tier: "free", scopes: expect.any(Set), state: "active",
      secretSha256: hashSecret(secret), expiresAt: null, graceUntil: null,
    });
    expect(key.scopes.size).toBe(scopes.length);
    expect(meter.findKey(secret.slice(0, -1))).toBeUndefined();
    expect(meter.findKey("")).toBeUndefined();
  });

  it("sees a revocation made by another connection from the next event-loop turn on", async () => {
    const { secret, key } = keyWith(10);
    const other = SqliteMeter.open(file, { now });
    expect(other.findKey(secret)?.state).toBe("active");
    changeKey((db) => revokeKey(db, key.id, T0));
    // Within the turn the cached key stands (settle() reads the state again: see below) ...
    expect(other.findKey(secret)?.state).toBe("active");
    await new Promise((resolve) => setImmediate(resolve));
    // ... and from the next turn on the change is seen, by every connection.
    expect(other.findKey(secret)?.state).toBe("revoked");
    expect(meter.findKey(secret)?.state).toBe("revoked");
    other.close();
  });

  it("sees a key created after its secret was first tried", async () => {
    expect(meter.findKey("cei_not_yet")).toBeUndefined();
    const { secret } = keyWith(10);
    await new Promise((resolve) => setImmediate(resolve));
    expect(meter.findKey(secret)?.state).toBe("active");
  });
});

const WINDOW_1 = { limit: 60, remaining: 59, reset_at: "2026-11-21T18:30:00.000Z", tier: "free" };

describe("Meter.settle", () => {
  it("counts the request, reads the balance, runs the work with them and charges its cost with one ledger row", async () => {
    const { key } = keyWith(10);
    const seen: Admission[] = [];
    const settlement = await meter.settle({
      key, operation: "search_entities", requestId: "req_one",
      work: (admission) => {
        seen.push(admission);
        return { value: "data", cost: 2 };
      },
    });
    expect(seen).toEqual([{ result: "admitted", credits_remaining: 10, rate_limit: WINDOW_1 }]);
    expect(settlement).toEqual({
      outcome: "answered", admission: seen[0], value: "data", charge: { result: "charged", credits_remaining: 8 },
    });
    const view = inspect(file);
    expect(view.credits(key.id)).toBe(8);
    expect(view.ledger(key.id)).toEqual([
      { kind: "top_up", operation: null, delta: 10, request_id: null },
      { kind: "charge", operation: "search_entities", delta: -2, request_id: "req_one" },
    ]);
    view.close();
  });

  it("resolves only after the charge is committed (visible to another connection)", async () => {
    const { key } = keyWith(10);
    const charged = request(key);
    const view = inspect(file);
    expect(view.credits(key.id)).toBe(10);
    await charged;
    expect(view.credits(key.id)).toBe(8);
    view.close();
  });

  it("a work that costs nothing is counted and charged nothing; one that costs more than the balance is charged nothing", async () => {
    const { key } = keyWith(1);
    expect(await admit(key)).toEqual({ result: "admitted", credits_remaining: 1, rate_limit: WINDOW_1 });
    const greedy = await meter.settle({ key, operation: "search_entities", requestId: "req_greedy", work: () => ({ value: "data", cost: 2 }) });
    expect(greedy).toMatchObject({ outcome: "answered", charge: { result: "insufficient_credits", credits_remaining: 1 } });
    expect(meter.status(key)).toEqual({ credits_remaining: 1, rate_limit: { ...WINDOW_1, remaining: 58 } });
    const view = inspect(file);
    expect(view.ledger(key.id)).toHaveLength(1);
    view.close();
  });

  it("requests of one turn: each work is given the balance the charges before it left", async () => {
    const { key } = keyWith(10);
    const answers = await Promise.all([request(key, 6), request(key, 6), request(key, 4)]);
    expect(answers.map(answerOf)).toEqual([
      { status: 200, credits_remaining: 4 },
      { status: 402, credits_remaining: 4 },
      { status: 200, credits_remaining: 0 },
    ]);
    expect(answers.map((a) => a.admission.rate_limit.remaining)).toEqual([59, 58, 57]);
  });

  it.each([["disabled", disableKey], ["revoked", revokeKey]] as const)(
    "a key %s after lookup → refused as forbidden, the work never runs, not counted, nothing charged",
    async (_state, change) => {
      const { key } = keyWith(10);
      await request(key);
      changeKey((db) => change(db, key.id, T0));
      let ran = false;
      const settlement = await meter.settle({ key, operation: "search_entities", requestId: "req_late", work: () => ((ran = true), { value: "data", cost: 2 }) });
      expect(settlement).toEqual({ outcome: "refused", admission: { result: "forbidden", credits_remaining: 8, rate_limit: WINDOW_1 } });
      expect(ran).toBe(false);
      const view = inspect(file);
      expect(view.credits(key.id)).toBe(8);
      expect(view.ledger(key.id)).toHaveLength(2);
      view.close();
    },
  );

  it("uses the tier as it is in the file at admission", async () => {
    const { key } = keyWith(10);
    changeKey((db) => setKeyTier(db, key.id, "pro", T0));
    expect((await admit(key)).rate_limit).toMatchObject({ limit: tierRateLimits.pro, tier: "pro" });
  });

  it("a work that throws fails alone: counted, charged nothing, the requests around it charged", async () => {
    const { key } = keyWith(10);
    const failing = () => meter.settle({ key, operation: "search_entities", requestId: "req_bad", work: () => { throw new Error("boom"); } });
    const [before, failed, after] = await Promise.all([request(key), failing(), request(key)]);
    expect(failed).toMatchObject({ outcome: "failed", error: new Error("boom"), admission: { result: "admitted", credits_remaining: 8 } });
    expect([before, after].map(answerOf)).toEqual([{ status: 200, credits_remaining: 8 }, { status: 200, credits_remaining: 6 }]);
    expect(meter.status(key)).toMatchObject({ credits_remaining: 6, rate_limit: { remaining: 57 } });
  });

  it("a job that fails inside a batch fails alone (a savepoint per request)", async () => {
    const { key } = keyWith(10);
    const broken = meter.settle({ key, operation: "get_project", requestId: null as never, work: () => ({ value: "data", cost: 1 }) });
    const results = await Promise.allSettled([request(key), broken, admit(key), request(key)]);
    expect(results.map((r) => r.status)).toEqual(["fulfilled", "rejected", "fulfilled", "fulfilled"]);
    expect(meter.status(key)).toMatchObject({ credits_remaining: 6, rate_limit: { remaining: 57 } });
    const view = inspect(file);
    expect(view.ledger(key.id).filter((row) => row.kind === "charge")).toHaveLength(2);
    view.close();
  });
});

describe("Meter rate limit (fixed windows aligned to the epoch)", () => {
  it("admits exactly `limit` requests, then 429 with whole seconds to reset_at, then resets at reset_at", async () => {
    const { key } = keyWith(1_000);
    const first = await Promise.all(Array.from({ length: 60 }, () => admit(key)));
    expect(first.map((s) => s.result)).toEqual(Array(60).fill("admitted"));
    expect(first.at(-1)!.rate_limit.remaining).toBe(0);

    expect(await admit(key)).toEqual({
      result: "rate_limited", credits_remaining: 1_000, retry_after_s: 50,
      rate_limit: { ...WINDOW_1, remaining: 0 },
    });
    clock = Date.UTC(2026, 10, 21, 18, 29, 59, 999);
    expect((await admit(key)).retry_after_s).toBe(1);

    clock = Date.UTC(2026, 10, 21, 18, 30, 0, 0);
    expect(await admit(key)).toMatchObject({
      result: "admitted",
      rate_limit: { limit: 60, remaining: 59, reset_at: "2026-11-21T18:31:00.000Z", tier: "free" },
    });
  });

  it("status() reports the window and balance without counting", async () => {
    const { key } = keyWith(10);
    await request(key);
    const expected = { credits_remaining: 8, rate_limit: WINDOW_1 };
    expect(meter.status(key)).toEqual(expected);
    expect(meter.status(key)).toEqual(expected);
    clock += 60_000;
    expect(meter.status(key).rate_limit).toEqual({ limit: 60, remaining: 60, reset_at: "2026-11-21T18:31:00.000Z", tier: "free" });
  });

  it("a process whose clock jumped a day ahead does not lock the key out for longer than one window", async () => {
    const { key } = keyWith(1_000);
    let aheadClock = T0 + 86_400_000;
    const ahead = SqliteMeter.open(file, { now: () => aheadClock });
    try {
      await Promise.all(Array.from({ length: 61 }, () => ahead.settle({ key, operation: "get_key", requestId: "req_ahead", work: () => ({ value: "ok", cost: 0 }) })));
      // This process's window is the current one: the day-ahead window's count is carried into it.
      expect(meter.status(key).rate_limit).toEqual({ ...WINDOW_1, remaining: 0 });
      const refused = await admit(key);
      expect(refused).toMatchObject({ result: "rate_limited", retry_after_s: 50, rate_limit: { reset_at: WINDOW_1.reset_at } });
      clock += 60_000;
      expect(await admit(key)).toMatchObject({ result: "admitted", rate_limit: { remaining: 59 } });
      // One window ahead is a clock that is merely early: kept, but Retry-After is capped at the window.
      aheadClock = clock + 60_000;
      await Promise.all(Array.from({ length: 61 }, () => ahead.settle({ key, operation: "get_key", requestId: "req_ahead", work: () => ({ value: "ok", cost: 0 }) })));
      const capped = await admit(key);
      expect(capped.result).toBe("rate_limited");
      expect(capped.retry_after_s).toBeLessThanOrEqual(60);
    } finally {
      ahead.close();
    }
  });
});

describe("Meter write lock held by another connection", () => {
  it("waits without blocking, then rejects with MeterBusyError; resumes once the lock is released", async () => {
    const { key } = keyWith(10);
    const holder = openMeterDatabase(file);
    try {
      holder.prepare("BEGIN IMMEDIATE").run();
      const waiting = request(key);
      let ticks = 0;
      const ticker = setInterval(() => void ticks++, 10);
      await expect(waiting).rejects.toBeInstanceOf(MeterBusyError);
      clearInterval(ticker);
      // The event loop kept turning while the meter waited (~2 s at 10 ms a tick).
      expect(ticks).toBeGreaterThan(50);
      holder.prepare("COMMIT").run();
      expect(await admit(key)).toMatchObject({ result: "admitted", credits_remaining: 10, rate_limit: WINDOW_1 });
    } finally {
      holder.close();
    }
  });
});

describe("Meter double spend (one process)", () => {
  it("K credits and N >> K concurrent requests: exactly K/cost charged, ledger matches, balance 0", async () => {
    const { key } = keyWith(100, "internal");
    const turns = await Promise.all(
      Array.from({ length: 10 }, async (_, turn) => {
        await new Promise((resolve) => setTimeout(resolve, turn % 3));
        return Promise.all(Array.from({ length: 50 }, () => request(key, 2)));
      }),
    );
    const results = turns.flat().map(answerOf);
    expect(results.filter((s) => s.status === 200)).toHaveLength(50);
    expect(results.filter((s) => s.status === 402)).toHaveLength(450);
    const view = inspect(file);
    expect(view.credits(key.id)).toBe(0);
    expect(view.ledger(key.id).filter((row) => row.kind === "charge")).toHaveLength(50);
    expect(view.ledgerSum(key.id)).toBe(0);
    view.close();
  });
});
