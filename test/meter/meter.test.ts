import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { openMeterDatabase } from "../../server/meter/_database.ts";
import { disableKey, revokeKey, setKeyTier } from "../../server/meter/keys.ts";
import { SqliteMeter, MeterBusyError, type Admission, type Charge, type KeyRecord } from "../../server/meter/meter.ts";
import { tierRateLimits } from "../../server/policy.ts";
import { T0, inspect, issueKey, tempDir, type TempDir } from "./_helpers.ts";

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
function charge(key: KeyRecord, cost = 2): Promise<Charge> {
  return meter.charge({ key, operation: "search_entities", cost, requestId: `req_${++requestCounter}` });
}
/** A request as the pipeline makes it: admitted, then charged when admitted with enough credits. */
async function request(key: KeyRecord, cost = 2): Promise<Admission | Charge> {
  const admission = await meter.admit(key);
  if (admission.result !== "admitted" || admission.credits_remaining < cost) return admission;
  return charge(key, cost);
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
    expect(key).toEqual({ id: expect.stringMatching(/^key_[0-9A-Za-z]{16}$/), tier: "free", scopes: expect.any(Set), state: "active" });
    expect(key.scopes.size).toBe(11);
    expect(meter.findKey(secret.slice(0, -1))).toBeUndefined();
    expect(meter.findKey("")).toBeUndefined();
  });

  it("sees a revocation made by another connection on the very next call", () => {
    const { secret, key } = keyWith(10);
    const other = SqliteMeter.open(file, { now });
    expect(other.findKey(secret)?.state).toBe("active");
    changeKey((db) => revokeKey(db, key.id, T0));
    expect(other.findKey(secret)?.state).toBe("revoked");
    expect(meter.findKey(secret)?.state).toBe("revoked");
    other.close();
  });
});

const WINDOW_1 = { limit: 60, remaining: 59, reset_at: "2026-11-21T18:30:00.000Z", tier: "free" };

describe("Meter.admit and Meter.charge", () => {
  it("admit counts the request and reads the balance; charge takes the cost and writes one ledger row", async () => {
    const { key } = keyWith(10);
    expect(await meter.admit(key)).toEqual({ result: "admitted", credits_remaining: 10, rate_limit: WINDOW_1 });
    expect(await charge(key)).toEqual({ result: "charged", credits_remaining: 8 });
    const view = inspect(file);
    expect(view.credits(key.id)).toBe(8);
    expect(view.ledger(key.id)).toEqual([
      { kind: "top_up", operation: null, delta: 10, request_id: null },
      { kind: "charge", operation: "search_entities", delta: -2, request_id: `req_${requestCounter}` },
    ]);
    view.close();
  });

  it("resolves only after the charge is committed (visible to another connection)", async () => {
    const { key } = keyWith(10);
    const charged = charge(key);
    const view = inspect(file);
    expect(view.credits(key.id)).toBe(10);
    await charged;
    expect(view.credits(key.id)).toBe(8);
    view.close();
  });

  it("a charge above the balance is refused and writes nothing", async () => {
    const { key } = keyWith(1);
    expect(await charge(key)).toEqual({ result: "insufficient_credits", credits_remaining: 1 });
    const view = inspect(file);
    expect(view.ledger(key.id)).toHaveLength(1);
    view.close();
  });

  it.each([["disabled", disableKey], ["revoked", revokeKey]] as const)(
    "a key %s after lookup → forbidden at admission and at charge, not counted, nothing charged",
    async (_state, change) => {
      const { key } = keyWith(10);
      await request(key);
      changeKey((db) => change(db, key.id, T0));
      expect(await meter.admit(key)).toEqual({ result: "forbidden", credits_remaining: 8, rate_limit: WINDOW_1 });
      expect(await charge(key)).toEqual({ result: "forbidden", credits_remaining: 8 });
      const view = inspect(file);
      expect(view.credits(key.id)).toBe(8);
      expect(view.ledger(key.id)).toHaveLength(2);
      view.close();
    },
  );

  it("uses the tier as it is in the file at admission", async () => {
    const { key } = keyWith(10);
    changeKey((db) => setKeyTier(db, key.id, "pro", T0));
    expect((await meter.admit(key)).rate_limit).toMatchObject({ limit: tierRateLimits.pro, tier: "pro" });
  });

  it("a job that fails inside a batch fails alone (a savepoint per request)", async () => {
    const { key } = keyWith(10);
    const broken = meter.charge({ key, operation: "get_project", cost: 1, requestId: null as never });
    const results = await Promise.allSettled([charge(key), broken, meter.admit(key), charge(key)]);
    expect(results.map((r) => r.status)).toEqual(["fulfilled", "rejected", "fulfilled", "fulfilled"]);
    expect(meter.status(key)).toMatchObject({ credits_remaining: 6, rate_limit: { remaining: 59 } });
    const view = inspect(file);
    expect(view.ledger(key.id).filter((row) => row.kind === "charge")).toHaveLength(2);
    view.close();
  });
});

describe("Meter rate limit (fixed windows aligned to the epoch)", () => {
  it("admits exactly `limit` requests, then 429 with whole seconds to reset_at, then resets at reset_at", async () => {
    const { key } = keyWith(1_000);
    const first = await Promise.all(Array.from({ length: 60 }, () => meter.admit(key)));
    expect(first.map((s) => s.result)).toEqual(Array(60).fill("admitted"));
    expect(first.at(-1)!.rate_limit.remaining).toBe(0);

    expect(await meter.admit(key)).toEqual({
      result: "rate_limited", credits_remaining: 1_000, retry_after_s: 50,
      rate_limit: { ...WINDOW_1, remaining: 0 },
    });
    clock = Date.UTC(2026, 10, 21, 18, 29, 59, 999);
    expect((await meter.admit(key)).retry_after_s).toBe(1);

    clock = Date.UTC(2026, 10, 21, 18, 30, 0, 0);
    expect(await meter.admit(key)).toMatchObject({
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
      await Promise.all(Array.from({ length: 61 }, () => ahead.admit(key)));
      // This process's window is the current one: the day-ahead window's count is carried into it.
      expect(meter.status(key).rate_limit).toEqual({ ...WINDOW_1, remaining: 0 });
      const refused = await meter.admit(key);
      expect(refused).toMatchObject({ result: "rate_limited", retry_after_s: 50, rate_limit: { reset_at: WINDOW_1.reset_at } });
      clock += 60_000;
      expect(await meter.admit(key)).toMatchObject({ result: "admitted", rate_limit: { remaining: 59 } });
      // One window ahead is a clock that is merely early: kept, but Retry-After is capped at the window.
      aheadClock = clock + 60_000;
      await Promise.all(Array.from({ length: 61 }, () => ahead.admit(key)));
      const capped = await meter.admit(key);
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
      const waiting = meter.admit(key);
      let ticks = 0;
      const ticker = setInterval(() => void ticks++, 10);
      await expect(waiting).rejects.toBeInstanceOf(MeterBusyError);
      clearInterval(ticker);
      // The event loop kept turning while the meter waited (~2 s at 10 ms a tick).
      expect(ticks).toBeGreaterThan(50);
      holder.prepare("COMMIT").run();
      expect(await meter.admit(key)).toMatchObject({ result: "admitted", credits_remaining: 10, rate_limit: WINDOW_1 });
    } finally {
      holder.close();
    }
  });
});

describe("Meter double spend (one process)", () => {
  it("K credits and N >> K concurrent charges: exactly K/cost charged, ledger matches, balance 0", async () => {
    const { key } = keyWith(100, "internal");
    const turns = await Promise.all(
      Array.from({ length: 10 }, async (_, turn) => {
        await new Promise((resolve) => setTimeout(resolve, turn % 3));
        return Promise.all(Array.from({ length: 50 }, () => charge(key, 2)));
      }),
    );
    const results = turns.flat();
    expect(results.filter((s) => s.result === "charged")).toHaveLength(50);
    expect(results.filter((s) => s.result === "insufficient_credits")).toHaveLength(450);
    const view = inspect(file);
    expect(view.credits(key.id)).toBe(0);
    expect(view.ledger(key.id).filter((row) => row.kind === "charge")).toHaveLength(50);
    expect(view.ledgerSum(key.id)).toBe(0);
    view.close();
  });
});
