// The admissions (or charges) of one key queued one after another run as one job in the meter's
// batch (server/meter/_queue.ts, "Together"). Whatever the mix, the answers, the ledger and the
// balances must be exactly those of running every request alone, one after another.
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { SqliteMeter, type Admission, type Charge, type KeyRecord } from "../../server/meter/meter.ts";
import type { OperationId } from "../../server/policy.ts";
import { T0, inspect, issueKey, tempDir } from "./_helpers.ts";

interface Step { kind: "admit" | "charge"; key: 0 | 1; cost: number }

const stepArb: fc.Arbitrary<Step> = fc.record({
  kind: fc.constantFrom("admit" as const, "charge" as const),
  key: fc.constantFrom(0 as const, 1 as const),
  cost: fc.integer({ min: 1, max: 5 }),
});
// Runs of the same key and kind are what gets grouped: make long runs likely.
const stepsArb = fc.array(fc.tuple(stepArb, fc.integer({ min: 1, max: 25 })), { minLength: 1, maxLength: 8 })
  .map((runs) => runs.flatMap(([step, times]) => Array.from({ length: times }, () => step)));

interface Run {
  answers: Array<Admission | Charge>;
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
    const send = (step: Step, i: number) =>
      step.kind === "admit"
        ? meter.admit(keys[step.key])
        : meter.charge({ key: keys[step.key], operation: "search_entities" as OperationId, cost: step.cost, requestId: `req_${i}` });
    const answers: Array<Admission | Charge> = [];
    if (together) answers.push(...(await Promise.all(steps.map(send))));
    else for (const [i, step] of steps.entries()) answers.push(await send(step, i));
    const view = inspect(file);
    const run = { answers, ledgers: keys.map((k) => view.ledger(k.id)), credits: keys.map((k) => view.credits(k.id)), batches };
    view.close();
    return run;
  } finally {
    meter.close();
    dir.remove();
  }
}

describe("Meter: a key's admissions and charges queued together", () => {
  it("answer, charge and count exactly as when each runs alone, one after another", async () => {
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

  it("charges of one key report the balance after each, in queue order, and count each request in the window", async () => {
    const run = await play([
      ...Array.from({ length: 3 }, () => ({ kind: "admit" as const, key: 0 as const, cost: 1 })),
      ...Array.from({ length: 3 }, () => ({ kind: "charge" as const, key: 0 as const, cost: 3 })),
      { kind: "admit", key: 1, cost: 1 },
      { kind: "charge", key: 0, cost: 3 },
    ], [10, 0], true);
    expect(run.batches).toEqual([8]);
    expect(run.answers.slice(0, 3).map((a) => (a as Admission).rate_limit.remaining)).toEqual([59, 58, 57]);
    expect(run.answers.slice(3, 6)).toEqual([
      { result: "charged", credits_remaining: 7 },
      { result: "charged", credits_remaining: 4 },
      { result: "charged", credits_remaining: 1 },
    ]);
    expect(run.answers[6]).toMatchObject({ result: "admitted", credits_remaining: 0, rate_limit: { remaining: 59 } });
    expect(run.answers[7]).toEqual({ result: "insufficient_credits", credits_remaining: 1 });
    const charges = run.ledgers[0]!.filter((row) => (row as { kind: string }).kind === "charge");
    expect(charges.map((row) => (row as { request_id: string }).request_id)).toEqual(["req_3", "req_4", "req_5"]);
    expect(run.credits[0]).toBe(1);
  });
});
