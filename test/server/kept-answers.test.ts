// Answers fixed by the request and the snapshot are kept, serialised, per loaded snapshot
// (server/operations/operation.ts, keepAnswers): a repeated request is answered without
// reading the snapshot again, and an answer the clock retires (freshness, an event's status) is
// made again once its time is up, or when the clock is set back before it was made.
import Database from "better-sqlite3";
import { afterEach, beforeAll, describe, expect, it } from "vitest";
import { JsonText } from "../../server/prebuilt-json.ts";
import type { Caller, Operation, OperationHandler } from "../../server/operations/operation.ts";
import { getEvent } from "../../server/operations/get-event.ts";
import { getProjectFeatures } from "../../server/operations/get-project-features.ts";
import { getProjectMarket } from "../../server/operations/get-project-market.ts";
import { FIXTURE_NOW, fixtureSnapshot } from "../_support/server.ts";

const caller: Caller = {
  id: "key_test", tier: "internal", scopes: new Set(), credits_remaining: 1,
  rate_limit: { limit: 1, remaining: 1, reset_at: "2026-03-01T12:01:00.000Z", tier: "internal" },
};

let snapshotFile: string;
const opened: Database.Database[] = [];
beforeAll(async () => {
  snapshotFile = await fixtureSnapshot();
});
afterEach(() => {
  for (const db of opened.splice(0)) if (db.open) db.close();
});

function handlerOf(operation: Operation, clock: { now: number }): { handler: OperationHandler; snapshot: Database.Database } {
  const snapshot = new Database(snapshotFile, { readonly: true, fileMustExist: true });
  opened.push(snapshot);
  return { handler: operation.create({ snapshot, now: () => clock.now }), snapshot };
}

/** The answer to GET with these path parameters and query, as the pipeline asks for it. */
function answer(handler: OperationHandler, params: Record<string, string>, query: Record<string, string> = {}) {
  const validation = handler.validate({ params, query }, []);
  if (!validation.valid) throw new Error(`invalid: ${validation.error.message}`);
  return handler.run(validation.request, caller);
}

function dataOf(result: ReturnType<typeof answer>): unknown {
  if (result.outcome !== "ok") return result.error.code;
  expect(result.data).toBeInstanceOf(JsonText);
  return JSON.parse((result.data as JsonText).json);
}

describe("kept answers", () => {
  it("a repeated request is answered with the same text, without reading the snapshot; another request reads it", () => {
    const { handler, snapshot } = handlerOf(getProjectFeatures, { now: FIXTURE_NOW });
    const first = answer(handler, { slug: "aurora-swap" }, { limit: "1" });
    expect(dataOf(first)).toMatchObject({ kind: "project_features", limit: 1, features: [expect.objectContaining({ feature_id: expect.any(String) })] });
    const missing = answer(handler, { slug: "no-such-project" });
    expect(missing).toMatchObject({ outcome: "not_found" });
    snapshot.close();
    // Kept: the same serialised text (and the same 404) with the snapshot closed.
    expect(answer(handler, { slug: "aurora-swap" }, { limit: "1" })).toEqual(first);
    expect((answer(handler, { slug: "aurora-swap" }, { limit: "1" }) as { data: unknown }).data).toBe((first as { data: unknown }).data);
    expect(answer(handler, { slug: "no-such-project" })).toEqual(missing);
    // Not kept: another limit is another request, and reading it needs the snapshot.
    expect(() => answer(handler, { slug: "aurora-swap" }, { limit: "2" })).toThrow(/not open/);
  });

  it("an answer whose freshness runs out is made again: 200 until the bound, 404 after it", () => {
    const clock = { now: Date.parse("2026-03-01T00:00:00.000Z") };
    const { handler } = handlerOf(getProjectMarket, clock);
    expect(dataOf(answer(handler, { slug: "aurora-swap" }))).toMatchObject({ kind: "project_market", as_of: "2026-02-28" });
    clock.now = Date.parse("2026-03-02T00:00:00.000Z");
    expect(dataOf(answer(handler, { slug: "aurora-swap" }))).toMatchObject({ kind: "project_market" });
    clock.now += 1;
    expect(dataOf(answer(handler, { slug: "aurora-swap" }))).toBe("NOT_FOUND");
    // A clock set back before the 404 was made makes the answer again.
    clock.now = Date.parse("2026-03-01T06:00:00.000Z");
    expect(dataOf(answer(handler, { slug: "aurora-swap" }))).toMatchObject({ kind: "project_market" });
  });

  it("an event's status is kept for the rest of its UTC day only", () => {
    const clock = { now: Date.parse("2026-03-09T00:00:00.000Z") };
    const { handler } = handlerOf(getEvent, clock);
    const status = () => (dataOf(answer(handler, { slug: "mile-high-summit" })) as { status: string }).status;
    expect(status()).toBe("upcoming");
    clock.now = Date.parse("2026-03-09T23:59:59.999Z");
    expect(status()).toBe("upcoming");
    clock.now += 1;
    expect(status()).toBe("ongoing");
    clock.now = Date.parse("2026-03-13T00:00:00.000Z");
    expect(status()).toBe("ended");
    clock.now = Date.parse("2026-03-10T12:00:00.000Z");
    expect(status()).toBe("ongoing");
  });
});
