// The unlock rule (decision 31): how a vesting schedule becomes dated unlocks. The compiler fixes
// everything a schedule fixes (its steps, amounts and cliff) in the snapshot's token_unlock_plans;
// the server only places the requested window on them (server/operations/get-token-unlocks.ts).
// Both halves use these functions, so the rule is written once. All times are integer ms since
// the epoch (the snapshot's date-times have millisecond precision).
//
// The rule, as docs/api.md states it:
// 1. At `start_at` (the TGE), `percent_unlocked_at_tge` of the amount unlocks.
// 2. The rest is split equally among the schedule's steps: one each cadence from `start_at`
//    (step k is start_at plus k cadences), strictly before `end_at`, and a last step at `end_at`.
// 3. With a `cliff_at` after `start_at`, the steps at or before it (the amount accrued) unlock
//    together at `cliff_at`; each later step unlocks on its own.
// Months are calendar months: step k keeps start_at's day of the month and time of day, on the
// month's last day when it has no such day (31 January + 1 month = 28 or 29 February), always
// counted from start_at, so the day never drifts. Unlocks of amount 0 are not unlocks.

export const UNLOCK_CADENCES = ["daily", "weekly", "monthly", "quarterly", "yearly", "linear"] as const;
export type UnlockCadence = (typeof UNLOCK_CADENCES)[number];

import { DAY_MS } from "./iso-time.ts";

/** A cadence's step: a fixed duration, or calendar months. `linear` vests in daily steps. */
const cadenceSteps: Record<UnlockCadence, { ms: number } | { months: number }> = {
  daily: { ms: DAY_MS },
  linear: { ms: DAY_MS },
  weekly: { ms: 7 * DAY_MS },
  monthly: { months: 1 },
  quarterly: { months: 3 },
  yearly: { months: 12 },
};

const DAYS_IN_MONTH = [31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31];
const isLeap = (year: number): boolean => (year % 4 === 0 && year % 100 !== 0) || year % 400 === 0;
const daysInMonth = (year: number, month0: number): number => (month0 === 1 && isLeap(year) ? 29 : DAYS_IN_MONTH[month0]!);

/**
 * The civil date of a day count since 1970-01-01: year, month 0-11 and day 1-31 (H. Hinnant's
 * days_from_civil inverse), without a Date: a request places up to hundreds of steps, and a Date
 * and its getters cost several times the arithmetic.
 */
function civil(days: number): { year: number; month0: number; day: number } {
  const z = days + 719_468;
  const era = Math.floor(z / 146_097);
  const doe = z - era * 146_097;
  const yoe = Math.floor((doe - Math.floor(doe / 1460) + Math.floor(doe / 36_524) - Math.floor(doe / 146_096)) / 365);
  const doy = doe - (365 * yoe + Math.floor(yoe / 4) - Math.floor(yoe / 100));
  const mp = Math.floor((5 * doy + 2) / 153);
  const day = doy - Math.floor((153 * mp + 2) / 5) + 1;
  const month0 = mp < 10 ? mp + 2 : mp - 10;
  return { year: yoe + era * 400 + (month0 <= 1 ? 1 : 0), month0, day };
}

/** `startMs` plus `months` calendar months, on the month's last day when it is shorter, at the same time of day. */
function addMonths(startMs: number, months: number): number {
  const days = Math.floor(startMs / DAY_MS);
  const { year, month0, day } = civil(days);
  const total = month0 + months;
  const targetYear = year + Math.floor(total / 12);
  const targetMonth = total - Math.floor(total / 12) * 12;
  return Date.UTC(targetYear, targetMonth, Math.min(day, daysInMonth(targetYear, targetMonth))) + (startMs - days * DAY_MS);
}

/** The time of step `k` of the cadence grid (k = 0 is `startMs`), before the last step is moved to end_at. */
export function cadenceStep(startMs: number, cadence: UnlockCadence, k: number): number {
  const step = cadenceSteps[cadence];
  return "ms" in step ? startMs + k * step.ms : addMonths(startMs, k * step.months);
}

/** The largest k >= 0 whose grid step is at or before `t` (`t` >= `startMs`). */
function lastGridStepAtOrBefore(startMs: number, cadence: UnlockCadence, t: number): number {
  const step = cadenceSteps[cadence];
  if ("ms" in step) return Math.max(0, Math.floor((t - startMs) / step.ms));
  const start = civil(Math.floor(startMs / DAY_MS));
  const at = civil(Math.floor(t / DAY_MS));
  const months = (at.year - start.year) * 12 + at.month0 - start.month0;
  // The estimate is the answer or one more: a shorter month or an earlier time of day can put step k after t.
  let k = Math.max(0, Math.floor(months / step.months));
  while (k > 0 && addMonths(startMs, k * step.months) > t) k--;
  return k;
}

/** The steps of a schedule from `startMs` to `endMs` (the last at `endMs`): at least one. */
export function unlockStepCount(startMs: number, endMs: number, cadence: UnlockCadence): number {
  return 1 + lastGridStepAtOrBefore(startMs, cadence, endMs - 1);
}

/** How many of the steps (1..stepCount) fall at or before `t`. */
export function unlockStepsAtOrBefore(startMs: number, endMs: number, cadence: UnlockCadence, t: number): number {
  if (t >= endMs) return unlockStepCount(startMs, endMs, cadence);
  if (t < startMs) return 0;
  return lastGridStepAtOrBefore(startMs, cadence, t);
}

/** What the snapshot fixes about one vesting schedule: a row of token_unlock_plans. */
export interface UnlockPlan {
  allocation_bucket: string;
  cadence: UnlockCadence;
  start_ms: number;
  end_ms: number;
  tge_amount: number;
  /** null: no cliff event (none, at start_at, or before the first step). */
  cliff_ms: number | null;
  cliff_amount: number;
  /** The first step that unlocks on its own; step_count + 1 when every step unlocks at the cliff. */
  first_step: number;
  step_count: number;
  step_amount: number;
}

/** A vesting schedule as served (tokenomics_vesting), its date-times in ms. */
export interface VestingSchedule {
  allocation_bucket: string;
  start_ms: number;
  cliff_ms: number | null;
  end_ms: number;
  cadence: UnlockCadence;
  percent_unlocked_at_tge: number;
  amount_native: number;
}

/** The plan of one schedule (the compiler writes it; the rule's tests build it directly). */
export function unlockPlan(schedule: VestingSchedule): UnlockPlan {
  const { start_ms: start, end_ms: end, cadence } = schedule;
  const stepCount = unlockStepCount(start, end, cadence);
  const tgeAmount = (schedule.amount_native * schedule.percent_unlocked_at_tge) / 100;
  const stepAmount = (schedule.amount_native - tgeAmount) / stepCount;
  const cliffSteps = schedule.cliff_ms === null ? 0 : unlockStepsAtOrBefore(start, end, cadence, schedule.cliff_ms);
  return {
    allocation_bucket: schedule.allocation_bucket,
    cadence,
    start_ms: start,
    end_ms: end,
    tge_amount: tgeAmount,
    cliff_ms: cliffSteps === 0 ? null : schedule.cliff_ms,
    cliff_amount: cliffSteps * stepAmount,
    first_step: cliffSteps + 1,
    step_count: stepCount,
    step_amount: stepAmount,
  };
}

export interface Unlock {
  allocation_bucket: string;
  unlock_ms: number;
  amount_native: number;
}

/** The time of step k (1..step_count) of a plan. */
function stepTime(plan: UnlockPlan, k: number): number {
  return k === plan.step_count ? plan.end_ms : cadenceStep(plan.start_ms, plan.cadence, k);
}

const inWindow = (t: number, from: number, to: number): boolean => from <= t && t <= to;

/**
 * The unlocks of `plans` in [fromMs, toMs] (both inclusive): how many there are, and the first
 * `limit` by time, then allocation bucket, then the plans' order. Each plan gives at most `limit`
 * of them, so the work is bounded by plans × limit whatever the window.
 */
export function unlocksInWindow(plans: readonly UnlockPlan[], fromMs: number, toMs: number, limit: number): { count: number; first: Unlock[] } {
  let count = 0;
  const found: Unlock[] = [];
  for (const plan of plans) {
    const bucket = plan.allocation_bucket;
    const own: Unlock[] = [];
    if (plan.tge_amount > 0 && inWindow(plan.start_ms, fromMs, toMs)) own.push({ allocation_bucket: bucket, unlock_ms: plan.start_ms, amount_native: plan.tge_amount });
    if (plan.cliff_ms !== null && plan.cliff_amount > 0 && inWindow(plan.cliff_ms, fromMs, toMs)) {
      own.push({ allocation_bucket: bucket, unlock_ms: plan.cliff_ms, amount_native: plan.cliff_amount });
    }
    count += own.length;
    if (plan.step_amount > 0) {
      const stepsBefore = unlockStepsAtOrBefore(plan.start_ms, plan.end_ms, plan.cadence, fromMs - 1);
      const low = Math.max(plan.first_step, stepsBefore + 1);
      const high = unlockStepsAtOrBefore(plan.start_ms, plan.end_ms, plan.cadence, toMs);
      if (high >= low) {
        count += high - low + 1;
        for (let k = low; k <= high && own.length < limit; k++) {
          own.push({ allocation_bucket: bucket, unlock_ms: stepTime(plan, k), amount_native: plan.step_amount });
        }
      }
    }
    for (const unlock of own.length > limit ? own.slice(0, limit) : own) found.push(unlock);
  }
  // Stable: equal times and buckets keep the plans' order.
  found.sort((a, b) => a.unlock_ms - b.unlock_ms || (a.allocation_bucket < b.allocation_bucket ? -1 : a.allocation_bucket > b.allocation_bucket ? 1 : 0));
  if (found.length > limit) found.length = limit;
  return { count, first: found };
}
