// The unlock rule of decision 31 against unlocks computed by hand: calendar months that end early
// (31 January, a leap February, the 30th in a quarter), leap days, end dates off the cadence grid,
// cliffs between steps and at the end, inclusive window ends, and the limit.
import { describe, expect, test } from "vitest";
import { cadenceStep, unlockPlan, unlocksInWindow, type UnlockCadence } from "../../snapshot/unlocks.ts";

interface Schedule {
  bucket?: string;
  start: string;
  cliff?: string;
  end: string;
  cadence: UnlockCadence;
  tge: number;
  amount: number;
}

interface Case {
  name: string;
  schedules: Schedule[];
  window: [from: string, to: string];
  limit?: number;
  count: number;
  /** [bucket, unlock_at, amount] */
  unlocks: Array<[string, string, number]>;
}

const ms = (iso: string): number => Date.parse(iso);

const cases: Case[] = [
  {
    name: "monthly from 31 January: the TGE share, then the last day of each shorter month, February 29 in a leap year",
    schedules: [{ start: "2024-01-31T00:00:00.000Z", end: "2024-07-31T00:00:00.000Z", cadence: "monthly", tge: 10, amount: 1200 }],
    window: ["2024-01-01T00:00:00.000Z", "2024-12-31T00:00:00.000Z"],
    count: 7,
    unlocks: [
      ["team", "2024-01-31T00:00:00.000Z", 120],
      ["team", "2024-02-29T00:00:00.000Z", 180],
      ["team", "2024-03-31T00:00:00.000Z", 180],
      ["team", "2024-04-30T00:00:00.000Z", 180],
      ["team", "2024-05-31T00:00:00.000Z", 180],
      ["team", "2024-06-30T00:00:00.000Z", 180],
      ["team", "2024-07-31T00:00:00.000Z", 180],
    ],
  },
  {
    name: "yearly from a leap day: February 28 in common years, the accrued year at the cliff",
    schedules: [{
      bucket: "investors", start: "2024-02-29T12:00:00.000Z", cliff: "2025-03-01T00:00:00.000Z", end: "2028-02-29T12:00:00.000Z",
      cadence: "yearly", tge: 0, amount: 400,
    }],
    window: ["2024-01-01T00:00:00.000Z", "2028-12-31T00:00:00.000Z"],
    count: 4,
    unlocks: [
      ["investors", "2025-03-01T00:00:00.000Z", 100],
      ["investors", "2026-02-28T12:00:00.000Z", 100],
      ["investors", "2027-02-28T12:00:00.000Z", 100],
      ["investors", "2028-02-29T12:00:00.000Z", 100],
    ],
  },
  {
    name: "daily across a leap day, the end off the grid: the last step at end_at",
    schedules: [{ start: "2028-02-27T12:00:00.000Z", end: "2028-03-02T06:00:00.000Z", cadence: "daily", tge: 0, amount: 40 }],
    window: ["2028-02-01T00:00:00.000Z", "2028-03-31T00:00:00.000Z"],
    count: 4,
    unlocks: [
      ["team", "2028-02-28T12:00:00.000Z", 10],
      ["team", "2028-02-29T12:00:00.000Z", 10],
      ["team", "2028-03-01T12:00:00.000Z", 10],
      ["team", "2028-03-02T06:00:00.000Z", 10],
    ],
  },
  {
    name: "linear vests in daily steps; both ends of the window are inside it",
    schedules: [{ start: "2028-02-27T12:00:00.000Z", end: "2028-03-02T06:00:00.000Z", cadence: "linear", tge: 0, amount: 40 }],
    window: ["2028-02-29T12:00:00.000Z", "2028-03-01T12:00:00.000Z"],
    count: 2,
    unlocks: [
      ["team", "2028-02-29T12:00:00.000Z", 10],
      ["team", "2028-03-01T12:00:00.000Z", 10],
    ],
  },
  {
    name: "weekly with a cliff between steps: TGE, the two accrued weeks at the cliff, then weekly; limit 3 of 9",
    schedules: [{
      start: "2026-01-01T00:00:00.000Z", cliff: "2026-01-20T00:00:00.000Z", end: "2026-03-01T00:00:00.000Z",
      cadence: "weekly", tge: 20, amount: 1125,
    }],
    window: ["2025-12-01T00:00:00.000Z", "2026-12-01T00:00:00.000Z"],
    limit: 3,
    count: 9,
    unlocks: [
      ["team", "2026-01-01T00:00:00.000Z", 225],
      ["team", "2026-01-20T00:00:00.000Z", 200],
      ["team", "2026-01-22T00:00:00.000Z", 100],
    ],
  },
  {
    name: "weekly with a cliff: the steps after it, the last one at end_at (1 March, not a Thursday)",
    schedules: [{
      start: "2026-01-01T00:00:00.000Z", cliff: "2026-01-20T00:00:00.000Z", end: "2026-03-01T00:00:00.000Z",
      cadence: "weekly", tge: 20, amount: 1125,
    }],
    window: ["2026-02-19T00:00:00.000Z", "2026-12-01T00:00:00.000Z"],
    count: 3,
    unlocks: [
      ["team", "2026-02-19T00:00:00.000Z", 100],
      ["team", "2026-02-26T00:00:00.000Z", 100],
      ["team", "2026-03-01T00:00:00.000Z", 100],
    ],
  },
  {
    name: "quarterly from 30 November: 28 February, then the 30th again",
    schedules: [{ start: "2025-11-30T00:00:00.000Z", end: "2026-11-30T00:00:00.000Z", cadence: "quarterly", tge: 0, amount: 400 }],
    window: ["2025-11-30T00:00:01.000Z", "2027-01-01T00:00:00.000Z"],
    count: 4,
    unlocks: [
      ["team", "2026-02-28T00:00:00.000Z", 100],
      ["team", "2026-05-30T00:00:00.000Z", 100],
      ["team", "2026-08-30T00:00:00.000Z", 100],
      ["team", "2026-11-30T00:00:00.000Z", 100],
    ],
  },
  {
    name: "a cliff at end_at unlocks everything there at once",
    schedules: [{
      start: "2026-01-01T00:00:00.000Z", cliff: "2027-01-01T00:00:00.000Z", end: "2027-01-01T00:00:00.000Z",
      cadence: "monthly", tge: 0, amount: 1200,
    }],
    window: ["2026-01-01T00:00:00.000Z", "2027-06-01T00:00:00.000Z"],
    count: 1,
    unlocks: [["team", "2027-01-01T00:00:00.000Z", 1200]],
  },
  {
    name: "month ends keep the time of day, in a common year",
    schedules: [{ start: "2023-01-31T23:59:59.999Z", end: "2023-04-30T23:59:59.999Z", cadence: "monthly", tge: 0, amount: 3 }],
    window: ["2023-01-01T00:00:00.000Z", "2023-12-31T00:00:00.000Z"],
    count: 3,
    unlocks: [
      ["team", "2023-02-28T23:59:59.999Z", 1],
      ["team", "2023-03-31T23:59:59.999Z", 1],
      ["team", "2023-04-30T23:59:59.999Z", 1],
    ],
  },
  {
    name: "a window inside a four-year daily schedule (2028 is a leap year: 1,461 steps): counted whole, the first 20 listed",
    schedules: [{ start: "2026-01-01T00:00:00.000Z", end: "2030-01-01T00:00:00.000Z", cadence: "daily", tge: 0, amount: 1461 }],
    window: ["2026-03-01T00:00:00.000Z", "2026-03-31T00:00:00.000Z"],
    limit: 20,
    count: 31,
    unlocks: Array.from({ length: 20 }, (_, i): [string, string, number] => ["team", `2026-03-${String(i + 1).padStart(2, "0")}T00:00:00.000Z`, 1]),
  },
  {
    name: "two schedules at the same moments: by time, then allocation bucket",
    schedules: [
      { bucket: "team", start: "2026-01-15T00:00:00.000Z", end: "2026-04-15T00:00:00.000Z", cadence: "monthly", tge: 0, amount: 300 },
      { bucket: "advisors", start: "2026-01-15T00:00:00.000Z", end: "2026-04-15T00:00:00.000Z", cadence: "monthly", tge: 0, amount: 30 },
    ],
    window: ["2026-02-01T00:00:00.000Z", "2026-03-31T00:00:00.000Z"],
    count: 4,
    unlocks: [
      ["advisors", "2026-02-15T00:00:00.000Z", 10],
      ["team", "2026-02-15T00:00:00.000Z", 100],
      ["advisors", "2026-03-15T00:00:00.000Z", 10],
      ["team", "2026-03-15T00:00:00.000Z", 100],
    ],
  },
  {
    name: "everything at TGE: no steps of amount 0, nothing after the start",
    schedules: [{ start: "2026-01-01T00:00:00.000Z", end: "2027-01-01T00:00:00.000Z", cadence: "monthly", tge: 100, amount: 50 }],
    window: ["2026-01-01T00:00:00.000Z", "2027-06-01T00:00:00.000Z"],
    count: 1,
    unlocks: [["team", "2026-01-01T00:00:00.000Z", 50]],
  },
  {
    name: "a window after the last unlock has none",
    schedules: [{ start: "2026-01-01T00:00:00.000Z", end: "2027-01-01T00:00:00.000Z", cadence: "monthly", tge: 10, amount: 50 }],
    window: ["2027-01-01T00:00:00.001Z", "2027-06-01T00:00:00.000Z"],
    count: 0,
    unlocks: [],
  },
];

describe("unlocksInWindow", () => {
  test.each(cases)("$name", ({ schedules, window: [from, to], limit = 20, count, unlocks }) => {
    const plans = schedules.map((s) => unlockPlan({
      allocation_bucket: s.bucket ?? "team",
      start_ms: ms(s.start),
      cliff_ms: s.cliff === undefined ? null : ms(s.cliff),
      end_ms: ms(s.end),
      cadence: s.cadence,
      percent_unlocked_at_tge: s.tge,
      amount_native: s.amount,
    }));
    const result = unlocksInWindow(plans, ms(from), ms(to), limit);
    expect(result.count).toBe(count);
    expect(result.first.map((u): [string, string, number] => [u.allocation_bucket, new Date(u.unlock_ms).toISOString(), u.amount_native])).toEqual(unlocks);
  });
});

test("the unlocks of a whole schedule add up to its amount", () => {
  const plan = unlockPlan({
    allocation_bucket: "ecosystem", start_ms: ms("2024-01-31T00:00:00.000Z"), cliff_ms: ms("2024-08-15T00:00:00.000Z"),
    end_ms: ms("2027-05-31T00:00:00.000Z"), cadence: "monthly", percent_unlocked_at_tge: 7.5, amount_native: 123_456_789,
  });
  const all = unlocksInWindow([plan], plan.start_ms, plan.end_ms, 10_000);
  expect(all.first).toHaveLength(all.count);
  expect(all.first.reduce((sum, u) => sum + u.amount_native, 0)).toBeCloseTo(123_456_789, 3);
});

test("calendar steps agree with Date's own calendar, every day from 1999-12 to 2101-03, every month length and leap year", () => {
  const reference = (start: number, months: number): number => {
    const d = new Date(start);
    const target = new Date(Date.UTC(d.getUTCFullYear(), d.getUTCMonth() + months, 1));
    const last = new Date(Date.UTC(target.getUTCFullYear(), target.getUTCMonth() + 1, 0)).getUTCDate();
    return Date.UTC(target.getUTCFullYear(), target.getUTCMonth(), Math.min(d.getUTCDate(), last)) + (start % 86_400_000);
  };
  const wrong: string[] = [];
  for (let start = ms("1999-12-01T07:30:00.250Z"); start < ms("2101-03-01T00:00:00.000Z"); start += 86_400_000) {
    for (const [cadence, months] of [["monthly", 1], ["quarterly", 3], ["yearly", 12]] as const) {
      for (const k of [1, 2, 13]) {
        if (cadenceStep(start, cadence, k) !== reference(start, k * months)) wrong.push(`${new Date(start).toISOString()} + ${k} ${cadence}`);
      }
    }
  }
  expect(wrong.slice(0, 5)).toEqual([]);
});
