import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { openMeterDatabase } from "../../server/meter/_database.ts";
import { disableKey, revokeKey, setKeyTier } from "../../server/meter/keys.ts";
import { Meter, type KeyRecord, type Outcome, type Settlement } from "../../server/meter/meter.ts";
import { tierRateLimits } from "../../server/policy.ts";
import { T0, inspect, issueKey, tempDir, type TempDir } from "./_helpers.ts";

let dir: TempDir;
let file: string;
let clock: number;
let meter: Meter;
const now = () => clock;

beforeEach(() => {
  dir = tempDir();
  file = dir.file("meter.db");
  clock = T0;
  meter = Meter.open(file, { now });
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
function settle(key: KeyRecord, outcome: Outcome = "ok", cost = 2): Promise<Settlement> {
  return meter.settle({ key, operation: "search_entities", cost, requestId: `req_${++requestCounter}`, outcome });
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
    const other = Meter.open(file, { now });
    expect(other.findKey(secret)?.state).toBe("active");
    changeKey((db) => revokeKey(db, key.id, T0));
    expect(other.findKey(secret)?.state).toBe("revoked");
    expect(meter.findKey(secret)?.state).toBe("revoked");
    other.close();
  });
});

describe("Meter.settle results", () => {
  it("charges: balance down, one ledger row, window counted", async () => {
    const { key } = keyWith(10);
    expect(await settle(key)).toEqual({
      result: "charged", credits_used: 2, credits_remaining: 8,
      rate_limit: { limit: 60, remaining: 59, reset_at: "2026-11-21T18:30:00.000Z", tier: "free" },
    });
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
    const settled = settle(key);
    const view = inspect(file);
    expect(view.credits(key.id)).toBe(10);
    await settled;
    expect(view.credits(key.id)).toBe(8);
    view.close();
  });

  it.each([
    ["invalid", 10, "invalid"],
    ["not_found", 10, "not_found"],
    ["ok", 1, "insufficient_credits"],
    ["not_found", 1, "insufficient_credits"],
  ] as const)("outcome %s with %i credits → %s, nothing charged, window counted", async (outcome, credits, result) => {
    const { key } = keyWith(credits);
    expect(await settle(key, outcome)).toEqual({
      result, credits_used: 0, credits_remaining: credits,
      rate_limit: { limit: 60, remaining: 59, reset_at: "2026-11-21T18:30:00.000Z", tier: "free" },
    });
    const view = inspect(file);
    expect(view.credits(key.id)).toBe(credits);
    expect(view.ledger(key.id)).toHaveLength(1);
    view.close();
  });

  it.each([["disabled", disableKey], ["revoked", revokeKey]] as const)(
    "a key %s after lookup → forbidden, not counted, nothing charged",
    async (_state, change) => {
      const { key } = keyWith(10);
      await settle(key);
      changeKey((db) => change(db, key.id, T0));
      expect(await settle(key)).toEqual({
        result: "forbidden", credits_used: 0, credits_remaining: 8,
        rate_limit: { limit: 60, remaining: 59, reset_at: "2026-11-21T18:30:00.000Z", tier: "free" },
      });
      const view = inspect(file);
      expect(view.credits(key.id)).toBe(8);
      expect(view.ledger(key.id)).toHaveLength(2);
      view.close();
    },
  );

  it("uses the tier as it is in the file at settle time", async () => {
    const { key } = keyWith(10);
    changeKey((db) => setKeyTier(db, key.id, "pro", T0));
    expect((await settle(key)).rate_limit).toMatchObject({ limit: tierRateLimits.pro, tier: "pro" });
  });

  it("rejects every request of a batch whose transaction fails, and nothing is charged", async () => {
    const { key } = keyWith(10);
    const broken = meter.settle({ key, operation: "get_project", cost: 1, requestId: null as never, outcome: "ok" });
    const results = await Promise.allSettled([settle(key), broken, settle(key)]);
    expect(results.map((r) => r.status)).toEqual(["rejected", "rejected", "rejected"]);
    expect(meter.status(key)).toMatchObject({ credits_remaining: 10, rate_limit: { remaining: 60 } });
  });
});

describe("Meter rate limit (fixed windows aligned to the epoch)", () => {
  it("passes exactly `limit` requests, then 429 with whole seconds to reset_at, then resets at reset_at", async () => {
    const { key } = keyWith(1_000);
    const first = await Promise.all(Array.from({ length: 60 }, () => settle(key)));
    expect(first.map((s) => s.result)).toEqual(Array(60).fill("charged"));
    expect(first.at(-1)!.rate_limit.remaining).toBe(0);

    expect(await settle(key)).toEqual({
      result: "rate_limited", credits_used: 0, credits_remaining: 880, retry_after_s: 50,
      rate_limit: { limit: 60, remaining: 0, reset_at: "2026-11-21T18:30:00.000Z", tier: "free" },
    });
    clock = Date.UTC(2026, 10, 21, 18, 29, 59, 999);
    expect((await settle(key)).retry_after_s).toBe(1);

    clock = Date.UTC(2026, 10, 21, 18, 30, 0, 0);
    expect(await settle(key)).toMatchObject({
      result: "charged",
      rate_limit: { limit: 60, remaining: 59, reset_at: "2026-11-21T18:31:00.000Z", tier: "free" },
    });
  });

  it("counts every request that reaches the rate step, valid or not", async () => {
    const { key } = keyWith(1_000);
    await Promise.all(Array.from({ length: 30 }, () => settle(key, "invalid")));
    await Promise.all(Array.from({ length: 30 }, () => settle(key, "not_found")));
    expect((await settle(key)).result).toBe("rate_limited");
    const view = inspect(file);
    expect(view.credits(key.id)).toBe(1_000);
    expect(view.ledger(key.id)).toHaveLength(1);
    view.close();
  });

  it("status() reports the window and balance without counting", async () => {
    const { key } = keyWith(10);
    await settle(key);
    const expected = {
      credits_remaining: 8,
      rate_limit: { limit: 60, remaining: 59, reset_at: "2026-11-21T18:30:00.000Z", tier: "free" },
    };
    expect(meter.status(key)).toEqual(expected);
    expect(meter.status(key)).toEqual(expected);
    clock += 60_000;
    expect(meter.status(key).rate_limit).toEqual({ limit: 60, remaining: 60, reset_at: "2026-11-21T18:31:00.000Z", tier: "free" });
  });
});

describe("Meter double spend (one process)", () => {
  it("K credits and N >> K concurrent settles: exactly K/cost charged, ledger matches, balance 0", async () => {
    const { key } = keyWith(100, "internal");
    const turns = await Promise.all(
      Array.from({ length: 10 }, async (_, turn) => {
        await new Promise((resolve) => setTimeout(resolve, turn % 3));
        return Promise.all(Array.from({ length: 50 }, () => settle(key, "ok", 2)));
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
