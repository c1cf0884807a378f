// What the sample holds at a given scale, and which records curators excluded. Every
// decision here is a pure function of the plan and a record's index, so any family can name
// records of another (a visible project, a fund) without reading what was written.

import { isoDate, isoDateTime } from "../snapshot/iso-time.ts";

export const MINUTE = 60_000;
export const HOUR = 60 * MINUTE;
export const DAY = 24 * HOUR;

/** The UTC date of `ms`, YYYY-MM-DD; formatting dates is a large share of the generator's time at scale. */
export const ymd = isoDate;

/** ISO 8601 UTC with milliseconds, as Date#toISOString for years 0-9999. */
export const iso = isoDateTime;

/**
 * Records per family at scale 1: the rich structure every operation needs (1,114 lines in
 * all). Scale n multiplies each count by n, so the sample has about 1,100 × n lines.
 */
export const baseCounts = {
  projects: 60,
  tokens: 240,
  people: 60,
  funds: 36,
  stocks: 36,
  narratives: 12,
  news: 80,
  events: 30,
  xAccounts: 50,
  liveSignals: 30,
  /** Per UTC day, for each of the 30 days before --as-of. */
  dailySignals: 16,
} as const;

export type Counts = { -readonly [K in keyof typeof baseCounts]: number };
export type EntityFamily = "projects" | "tokens" | "people" | "funds" | "stocks" | "narratives" | "news" | "events" | "xAccounts";

export interface Plan {
  asOf: number;
  /** Midnight UTC of the --as-of date. */
  today: number;
  scale: number;
  counts: Counts;
}

export const TRENDING_DAYS = 30;

export function makePlan(asOf: Date, scale: number): Plan {
  const asOfMs = asOf.getTime();
  const factor = Math.max(1, scale);
  const counts = Object.fromEntries(
    Object.entries(baseCounts).map(([family, base]) => [family, Math.round(base * factor)]),
  ) as Counts;
  return { asOf: asOfMs, today: Math.floor(asOfMs / DAY) * DAY, scale, counts };
}

/**
 * Curators hid or deleted these records: index % modulus === remainder. The moduli are
 * co-prime with the families' regular patterns so that exclusions fall on varied records.
 */
const exclusions: Record<EntityFamily, { hidden: [number, number]; deleted: [number, number] }> = {
  projects: { hidden: [23, 17], deleted: [31, 26] },
  tokens: { hidden: [43, 13], deleted: [47, 29] },
  people: { hidden: [19, 9], deleted: [37, 30] },
  funds: { hidden: [17, 12], deleted: [29, 20] },
  stocks: { hidden: [13, 5], deleted: [23, 21] },
  narratives: { hidden: [11, 7], deleted: [13, 10] },
  news: { hidden: [21, 8], deleted: [27, 19] },
  events: { hidden: [14, 6], deleted: [19, 12] },
  xAccounts: { hidden: [12, 7], deleted: [17, 10] },
};

export function visibility(family: EntityFamily, index: number): { hidden: boolean; deleted: boolean } {
  const rule = exclusions[family];
  return { hidden: index % rule.hidden[0] === rule.hidden[1], deleted: index % rule.deleted[0] === rule.deleted[1] };
}

/**
 * A curator's search prominence (decision 29) on about one record in eleven of every family, from
 * 1 to 1000, so that curated and compiled signals meet in the sample's search order.
 */
export function curatedProminence(family: EntityFamily, index: number): { prominence?: number } {
  return index % 11 === 3 ? { prominence: 1 + ((index * 37 + family.length * 101) % 1000) } : {};
}

export function isVisible(family: EntityFamily, index: number): boolean {
  const { hidden, deleted } = visibility(family, index);
  return !hidden && !deleted;
}

/** `index` if that record is visible, else the next visible one (wrapping around). */
export function nextVisible(plan: Plan, family: EntityFamily, index: number): number {
  const count = plan.counts[family];
  let k = ((index % count) + count) % count;
  while (!isVisible(family, k)) k = (k + 1) % count;
  return k;
}

/** `prj_0001` style ids: 1-based, at least four digits. */
export const padded = (prefix: string, index: number): string => `${prefix}_${String(index + 1).padStart(4, "0")}`;
