// trending.jsonl: "live" signals observed within the last hour (a few stale ones hours old)
// and one set of daily signals for each of the 30 UTC days before --as-of, spread over
// projects, tokens, people, X accounts (named by handle), stocks and narratives, always visible ones.
import type { TrendingSignalSource } from "../compiler/families/trending/source.ts";
import { narrativeIdentity, personIdentity, projectIdentity, stockIdentity, tokenIdentity, xAccountIdentity } from "./_identity.ts";
import { internalFields } from "./_internal.ts";
import { DAY, HOUR, MINUTE, TRENDING_DAYS, iso, nextVisible, ymd, type EntityFamily, type Plan } from "./plan.ts";
import { rngFor, type Rng } from "./_prng.ts";

type EntityRef = TrendingSignalSource["entity"];

const ENTITY_FAMILIES = ["projects", "tokens", "people", "xAccounts", "stocks", "narratives"] as const satisfies readonly EntityFamily[];

/** Live signal j is stale (observed 3-6 hours ago) when j % 15 === 7. */
export const isStaleLiveSignal = (j: number): boolean => j % 15 === 7;

/**
 * Picks distinct visible entities per family: each call returns the next visible record after
 * the previous one, so a run of picks never repeats while it is shorter than the family.
 */
class EntityCursor {
  readonly #plan: Plan;
  readonly #next: number[];

  constructor(plan: Plan, offset: number) {
    this.#plan = plan;
    this.#next = ENTITY_FAMILIES.map((family, i) => (offset * 7 + i * 13) % plan.counts[family]);
  }

  take(slot: number): EntityRef {
    const family = ENTITY_FAMILIES[slot % ENTITY_FAMILIES.length]!;
    const position = slot % ENTITY_FAMILIES.length;
    const index = nextVisible(this.#plan, family, this.#next[position]!);
    this.#next[position] = index + 1;
    switch (family) {
      case "projects": return { type: "project", id: projectIdentity(index).id };
      case "tokens": return { type: "token", id: tokenIdentity(index).id };
      case "people": return { type: "person", id: personIdentity(index).id };
      case "stocks": return { type: "stock", id: stockIdentity(index).id };
      case "narratives": return { type: "narrative", id: narrativeIdentity(index).id };
      default: return { type: "x_account", handle: xAccountIdentity(this.#plan, index).handle };
    }
  }
}

function extras(rng: Rng, plan: Plan, key: string): Partial<TrendingSignalSource> {
  if (!rng.chance(0.4)) return {};
  return {
    heat: rng.float(0, 10),
    signal_count: rng.int(3, 5000),
    summary: "Mentions rose across tracked channels.",
    clicks: rng.int(0, 20_000),
    raw_signals: [{ channel: rng.pick(["x", "forum", "news"]), count: rng.int(1, 900) }],
    ...internalFields(rng, plan, key, 0.5),
  };
}

export function* trendingRecords(plan: Plan): Generator<TrendingSignalSource> {
  const live = new EntityCursor(plan, 0);
  for (let j = 0; j < plan.counts.liveSignals; j += 1) {
    const rng = rngFor("trending-live", j);
    const age = isStaleLiveSignal(j) ? rng.int(3 * HOUR, 6 * HOUR) : rng.int(MINUTE, 55 * MINUTE);
    yield {
      entity: live.take(j),
      day: "live",
      observed_at: iso(plan.asOf - age),
      score: rng.float(1, 100),
      ...extras(rng, plan, `live-${j}`),
    };
  }
  for (let d = 1; d <= TRENDING_DAYS; d += 1) {
    const dayStart = plan.today - d * DAY;
    const cursor = new EntityCursor(plan, d);
    for (let j = 0; j < plan.counts.dailySignals; j += 1) {
      const rng = rngFor(`trending-day-${d}`, j);
      yield {
        entity: cursor.take(j),
        day: ymd(dayStart),
        observed_at: iso(dayStart + rng.int(0, DAY - 1)),
        score: rng.float(1, 100),
        ...extras(rng, plan, `day-${d}-${j}`),
      };
    }
  }
}
