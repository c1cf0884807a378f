// The key lifecycle (decision 37) on both meters, through the key store and the meter a server
// uses, with an injected clock: reroll and its grace, expiry, refills applied exactly once per
// period however many readers (in this process and in three others), debit and transfer, the
// audit log, usage from the ledger, and last use to the minute.
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { KeyRecord, Meter } from "../../server/meter/interface.ts";
import type { KeyStore } from "../../server/meter/key-store.ts";
import { openKeyStore, openMeter } from "../../server/meter/open.ts";
import type { OperationId, Scope } from "../../server/policy.ts";
import { meterBackends, newMeterLocation } from "../_support/meter-backends.ts";
import { viewMeter, type MeterView } from "../_support/meter-view.ts";
import { T0, startReadyChild } from "./_helpers.ts";

const HOUR = 3_600_000;
const DAY = 24 * HOUR;
const READER = fileURLToPath(new URL("./_refill-reader.ts", import.meta.url));
const nextTurn = () => new Promise((resolve) => setImmediate(resolve));

describe.each(meterBackends)("%s meter", (backend) => {
  let location: string;
  let store: KeyStore;
  let meter: Meter;
  let view: MeterView;
  const clock = { now: T0 };
  const now = () => clock.now;
  let requests = 0;

  beforeAll(async () => {
    location = await newMeterLocation(backend);
    store = await openKeyStore(location, { mustExist: false, now, actor: "ops" });
    meter = await openMeter(location, { now });
    view = viewMeter(location);
  });
  afterAll(async () => {
    await meter.close();
    await store.close();
    await view.close();
  });

  const newKey = (credits: number, extra: { scopes?: Scope[]; expiresAt?: number } = {}) => store.create({ tier: "pro", credits, ...extra }, clock.now);

  /** A request as the pipeline answers it: the lookup (401, 403), then settled at `cost`. */
  async function ask(secret: string, options: { meter?: Meter; operation?: OperationId; cost?: number; key?: KeyRecord } = {}): Promise<string> {
    const reader = options.meter ?? meter;
    let key = options.key ?? await reader.findKey(secret);
    // As the pipeline does, a refusal is only decided on the key as it stands.
    if (options.key === undefined && key !== undefined && key.state !== "active") key = await reader.findKey(secret, { fresh: true });
    if (key === undefined) return "401";
    if (key.state !== "active") return `403 ${key.state}`;
    const cost = options.cost ?? 1;
    const settlement = await reader.settle({
      key, operation: options.operation ?? "get_news", requestId: `req_${++requests}`,
      work: (admission) => (admission.credits_remaining < cost ? { value: "402", cost: 0 } : { value: "200", cost }),
    });
    if (settlement.outcome === "refused") {
      const { result } = settlement.admission;
      return result === "unknown" ? "401" : result === "expired" ? "403 expired" : `refused ${result}`;
    }
    if (settlement.outcome !== "answered") throw new Error(`unexpected ${settlement.outcome}`);
    return settlement.charge?.result === "insufficient_credits" ? "402" : settlement.value;
  }

  it("reroll: same id, tier, scopes and balance; the old secret works through its grace, then is unknown", async () => {
    const created = await newKey(50, { scopes: ["news", "search"] });
    expect(await ask(created.key)).toBe("200");
    const rerolled = await store.reroll(created.id, HOUR, clock.now);
    expect(rerolled).toMatchObject({ id: created.id, tier: "pro", scopes: ["search", "news"], credits: 49, state: "active" });
    expect(rerolled.key).not.toBe(created.key);
    expect(rerolled.prefix).toBe(rerolled.key.slice(0, 10));
    await nextTurn();
    expect([await ask(rerolled.key), await ask(created.key)]).toEqual(["200", "200"]);

    clock.now += HOUR;
    expect([await ask(created.key), await ask(rerolled.key)]).toEqual(["401", "200"]);

    // No grace: the secret stops at once, even in a reader that has it cached as the key's own.
    const again = await store.reroll(created.id, 0, clock.now);
    await nextTurn();
    expect([await ask(rerolled.key), await ask(again.key), await ask(created.key)]).toEqual(["401", "200", "401"]);
    expect(await view.credits(created.id)).toBe(45);
  });

  it("expiry: 403 expired from the moment on, not counted; `never` lifts it; revoked stays revoked", async () => {
    const created = await newKey(10, { expiresAt: clock.now + 60_000 });
    const before = await meter.findKey(created.key);
    expect(await ask(created.key)).toBe("200");
    clock.now += 60_000;
    expect(await ask(created.key)).toBe("403 expired");
    // A reader holding the key from before its moment is refused by the admission, and counts nothing.
    const status = await meter.status(before!);
    expect(await ask(created.key, { key: before! })).toBe("403 expired");
    expect(await meter.status(before!)).toEqual(status);
    expect((await store.list(clock.now)).find((key) => key.id === created.id)).toMatchObject({ state: "expired", expires_at: new Date(clock.now).toISOString() });

    await store.expire(created.id, null, clock.now);
    await nextTurn();
    expect(await ask(created.key)).toBe("200");
    await store.expire(created.id, clock.now, clock.now);
    await nextTurn();
    expect(await ask(created.key)).toBe("403 expired");
    await expect(store.expire(created.id, clock.now - 1, clock.now)).rejects.toThrow("is in the past");
    expect(await store.revoke(created.id, clock.now)).toMatchObject({ state: "revoked" });
  });

  it("refill: tops up to --to once per period, however many readers in this process race for it", async () => {
    const created = await newKey(10);
    await store.setRefill(created.id, { every: "day", to: 100 }, clock.now);
    for (let i = 0; i < 3; i++) expect(await ask(created.key)).toBe("200");
    // The period the refill was set in is not refilled.
    expect(await view.credits(created.id)).toBe(7);

    const day = Math.floor(clock.now / DAY) * DAY;
    const readers = [meter, ...await Promise.all([1, 2, 3].map(() => openMeter(location, { now })))];
    try {
      for (const moment of [day + DAY + 30_000, day + DAY + 20 * HOUR, day + 2 * DAY]) {
        clock.now = moment;
        const keys = await Promise.all(readers.map((reader) => reader.findKey(created.key)));
        const answers = await Promise.all(Array.from({ length: 40 }, (_, i) => ask(created.key, { meter: readers[i % 4], key: keys[i % 4] })));
        expect(answers.filter((answer) => answer === "200")).toHaveLength(40);
      }
    } finally {
      await Promise.all(readers.slice(1).map((reader) => reader.close()));
    }
    const refills = (await view.ledger(created.id)).filter((row) => row.kind === "refill").map((row) => row.delta);
    // 7 → 100 on the next day, 40 spent twice that day, then 20 → 100 on the day after.
    expect(refills).toEqual([93, 80]);
    expect(await view.credits(created.id)).toBe(60);
  });

  it("refill: readers in three processes, one period, one refill", async () => {
    const created = await newKey(0);
    await store.setRefill(created.id, { every: "month", to: 90 }, clock.now);
    const nextMonth = Date.UTC(new Date(clock.now).getUTCFullYear(), new Date(clock.now).getUTCMonth() + 1, 1, 0, 0, 5);
    const children = ["a", "b", "c"].map((label) => startReadyChild(READER, [location, created.key, String(nextMonth), "40", label], `reader ${label}`));
    await Promise.all(children.map((child) => child.ready));
    for (const child of children) child.go();
    const tallies = await Promise.all(children.map((child) => child.done));
    expect(tallies.reduce((sum, tally) => sum + tally.charged!, 0)).toBe(90);
    expect((await view.ledger(created.id)).filter((row) => row.kind === "refill").map((row) => row.delta)).toEqual([90]);
    expect(await view.credits(created.id)).toBe(0);
  }, 60_000);

  it("debit and transfer: never below 0, all or nothing, from a revoked key but not to one; audited on both keys", async () => {
    const a = await newKey(100);
    const b = await newKey(5);
    expect(await store.debit(a.id, 30, clock.now)).toMatchObject({ credits: 70 });
    await expect(store.debit(a.id, 71, clock.now)).rejects.toThrow(`cannot debit 71 credits from key "${a.id}": its balance is 70`);
    expect((await store.transfer(a.id, b.id, 20, clock.now)).map((key) => key.credits)).toEqual([50, 25]);
    await expect(store.transfer(b.id, a.id, 26, clock.now)).rejects.toThrow(`cannot transfer 26 credits from key "${b.id}": its balance is 25`);
    await expect(store.transfer(a.id, a.id, 1, clock.now)).rejects.toThrow("to itself");
    await store.revoke(a.id, clock.now);
    await expect(store.transfer(b.id, a.id, 1, clock.now)).rejects.toThrow(`cannot transfer credits to key "${a.id}": it is revoked`);
    expect((await store.transfer(a.id, b.id, 50, clock.now)).map((key) => key.credits)).toEqual([0, 75]);
    await expect(store.credit(a.id, 1, clock.now)).rejects.toThrow("revoked");

    for (const key of [a, b]) expect((await view.ledger(key.id)).reduce((sum, row) => sum + row.delta, 0)).toBe(await view.credits(key.id));
    expect((await view.ledger(a.id)).map((row) => `${row.kind} ${row.delta}`)).toEqual(["top_up 100", "debit -30", "transfer -20", "transfer -50"]);
    const audit = (await store.audit({ keyId: b.id })).map(({ actor, action, detail, before, after }) => ({ actor, action, detail, before, after }));
    expect(audit).toEqual([
      { actor: "ops", action: "create", detail: null, before: null, after: expect.objectContaining({ credits: 5, tier: "pro", state: "active" }) },
      { actor: "ops", action: "transfer", detail: { amount: 20, from: a.id }, before: { credits: 5 }, after: { credits: 25 } },
      { actor: "ops", action: "transfer", detail: { amount: 50, from: a.id }, before: { credits: 25 }, after: { credits: 75 } },
    ]);
    expect((await store.audit({ keyId: a.id })).map((entry) => entry.action)).toEqual(["create", "debit", "transfer", "revoke", "transfer"]);
    expect((await store.audit({ keyId: a.id }))[3]).toMatchObject({ at: new Date(clock.now).toISOString(), before: { state: "active" }, after: { state: "revoked" } });
  });

  it("usage: charged requests and credits by key, UTC day and operation, within --from and --to; last use to the minute", async () => {
    clock.now = Date.UTC(2027, 0, 10, 23, 59, 30);
    const a = await newKey(100);
    const b = await newKey(100);
    expect(await store.list(clock.now)).toContainEqual(expect.objectContaining({ id: a.id, last_used_at: null }));
    await ask(a.key, { operation: "search_entities", cost: 2 });
    await ask(a.key);
    clock.now += 60_000; // 2027-01-11T00:00:30Z
    await ask(a.key);
    await ask(b.key, { operation: "search_entities", cost: 2 });
    await ask(b.key, { operation: "get_news", cost: 500 }); // 402: no ledger row, not in the usage

    const range = { from: Date.UTC(2027, 0, 10), to: Date.UTC(2027, 0, 12) };
    expect(await store.usage({ ...range, by: ["day", "operation"] })).toEqual([
      { day: "2027-01-10", operation: "get_news", requests: 1, credits: 1 },
      { day: "2027-01-10", operation: "search_entities", requests: 1, credits: 2 },
      { day: "2027-01-11", operation: "get_news", requests: 1, credits: 1 },
      { day: "2027-01-11", operation: "search_entities", requests: 1, credits: 2 },
    ]);
    const byKey = await store.usage({ from: Date.UTC(2027, 0, 11), to: range.to, by: ["key"] });
    expect(byKey).toEqual([{ key_id: a.id, name: null, requests: 1, credits: 1 }, { key_id: b.id, name: null, requests: 1, credits: 2 }].sort((x, y) => (x.key_id < y.key_id ? -1 : 1)));
    expect(await store.usage({ from: Date.UTC(2027, 0, 12), by: ["key"] })).toEqual([]);

    const listed = await store.list(clock.now);
    expect(listed.find((key) => key.id === a.id)?.last_used_at).toBe("2027-01-11T00:00:00.000Z");
    expect(listed.find((key) => key.id === b.id)?.last_used_at).toBe("2027-01-11T00:00:00.000Z");
  });
});
