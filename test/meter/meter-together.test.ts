// The requests of one key queued one after another settle as one job in the meter's batch
// (server/meter/sqlite/_queue.ts, "Together"; server/meter/sqlite/meter.ts, #settleAll). Whatever the mix, the
// answers, the ledger and the balances must be exactly those of settling every request alone, one
// after another.
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { SqliteMeter } from "../../server/meter/sqlite/meter.ts";
import type { KeyRecord, Settlement } from "../../server/meter/interface.ts";
import { T0, answerOf, inspect, issueKey, settleRequest, tempDir } from "./_helpers.ts";

/** `free`: a request that costs nothing (GET /v1/key); `fails`: its work throws. */
interface Step { kind: "charged" | "free" | "fails"; key: 0 | 1; cost: number }

const stepArb: fc.Arbitrary<Step> = fc.record({
  kind: fc.constantFrom("charged" as const, "charged" as const, "free" as const, "fails" as const),
  key: fc.constantFrom(0 as const, 1 as const),
  cost: fc.integer({ min: 1, max: 5 }),
});
// Runs of the same key are what gets grouped: make long runs likely.
const stepsArb = fc.array(fc.tuple(stepArb, fc.integer({ min: 1, max: 25 })), { minLength: 1, maxLength: 8 })
  .map((runs) => runs.flatMap(([step, times]) => Array.from({ length: times }, () => step)));

interface Run {
  answers: Array<ReturnType<typeof answerOf> & { remaining: number }>;
  ledgers: unknown[][];
  credits: number[];
  batches: number[];
}

async function play(steps: readonly Step[], credits: readonly [number, number], together: boolean): Promise<Run> {
  const dir = tempDir();
  const file = dir.file("meter.db");
  const batches: number[] = [];
  const secrets = credits.map((c) => issueKey(file, { credits: c, tier: "free" }).key);
  const meter = SqliteMeter.open(file, { now: () => T0, observer: { batch: (jobs) => batches.push(jobs), failed: () => undefined } });
  try {
    const keys = secrets.map((secret) => meter.findKey(secret)!) as [KeyRecord, KeyRecord];
    const send = (step: Step, i: number): Promise<Settlement<unknown>> => {
      const key = keys[step.key];
      if (step.kind === "charged") return settleRequest(meter, key, step.cost, `req_${i}`);
      return meter.settle({
        key, operation: "get_key", requestId: `req_${i}`,
        work: () => {
          if (step.kind === "fails") throw new Error("the work failed");
          return { value: "ok", cost: 0 };
        },
      });
    };
    const settlements: Array<Settlement<unknown>> = [];
    if (together) settlements.push(...(await Promise.all(steps.map(send))));
    else for (const [i, step] of steps.entries()) settlements.push(await send(step, i));
    const view = inspect(file);
    const run = {
      answers: settlements.map((s) => ({ ...answerOf(s), remaining: s.admission.rate_limit.remaining })),
      ledgers: keys.map((k) => view.ledger(k.id)),
      credits: keys.map((k) => view.credits(k.id)),
      batches,
    };
    view.close();
    return run;
  } finally {
    meter.close();
    dir.remove();
  }
}

describe("Meter: a key's requests settled together", () => {
  it("answer, charge and count exactly as when each settles alone, one after another", async () => {
    await fc.assert(
      fc.asyncProperty(stepsArb, fc.tuple(fc.integer({ min: 0, max: 60 }), fc.integer({ min: 0, max: 60 })), async (steps, credits) => {
        const grouped = await play(steps, credits, true);
        const alone = await play(steps, credits, false);
        // Every step in one batch (one transaction) against one batch per step.
        expect(grouped.batches).toEqual([steps.length]);
        expect(alone.batches).toHaveLength(steps.length);
        expect(grouped.answers).toEqual(alone.answers);
        expect(grouped.ledgers).toEqual(alone.ledgers);
        expect(grouped.credits).toEqual(alone.credits);
      }),
      { numRuns: 40, seed: 20261125 },
    );
  });

  it("requests of one key report the balance after each charge, in queue order, and count each request in the window", async () => {
    const run = await play([
      ...Array.from({ length: 3 }, () => ({ kind: "free" as const, key: 0 as const, cost: 1 })),
      ...Array.from({ length: 3 }, () => ({ kind: "charged" as const, key: 0 as const, cost: 3 })),
      { kind: "free", key: 1, cost: 1 },
      { kind: "charged", key: 0, cost: 3 },
    ], [10, 0], true);
    expect(run.batches).toEqual([8]);
    expect(run.answers).toEqual([
      { status: 200, credits_remaining: 10, remaining: 59 },
      { status: 200, credits_remaining: 10, remaining: 58 },
      { status: 200, credits_remaining: 10, remaining: 57 },
      { status: 200, credits_remaining: 7, remaining: 56 },
      { status: 200, credits_remaining: 4, remaining: 55 },
      { status: 200, credits_remaining: 1, remaining: 54 },
      { status: 200, credits_remaining: 0, remaining: 59 },
      { status: 402, credits_remaining: 1, remaining: 53 },
    ]);
    const charges = run.ledgers[0]!.filter((row) => (row as { kind: string }).kind === "charge");
    expect(charges.map((row) => (row as { request_id: string }).request_id)).toEqual(["req_3", "req_4", "req_5"]);
    expect(run.credits[0]).toBe(1);
  });
});
