// events.jsonl: in-person Web3 events. The first 30 cycle upcoming / ongoing / ended relative
// to the --as-of date; the rest are spread over three years either side.
import type { EventSource } from "../compiler/families/events/source.ts";
import { internalFields } from "./_internal.ts";
import { CITIES, EVENT_WORDS, baseName, slugify } from "./_names.ts";
import { baseCounts, DAY, padded, curatedProminence, visibility, ymd, type Plan } from "./plan.ts";
import { rngFor, type Rng } from "./_prng.ts";

const EVENT_TYPES = ["conference", "hackathon", "meetup", "summit", "workshop", "expo"] as const;
export const eventStates = ["upcoming", "ongoing", "ended"] as const;

/** Curators have not yet confirmed these events' dates: they are not served. */
export const datesValidated = (index: number): boolean => index % 8 !== 5;

export function* eventRecords(plan: Plan): Generator<EventSource> {
  for (let k = 0; k < plan.counts.events; k += 1) {
    const rng = rngFor("event", k);
    const [start, end] = k < baseCounts.events ? ladderDates(plan, rng, k) : randomDates(plan, rng);
    const word = EVENT_WORDS[k % EVENT_WORDS.length]!;
    const name = `${baseName(k, 23003)} ${word} ${ymd(start).slice(0, 4)}`;
    const slug = slugify(name);
    const [city, country] = rng.pick(CITIES);
    const record: EventSource = {
      id: padded("evt", k),
      slug,
      name,
      event_type: rng.pick(EVENT_TYPES),
      start_date: ymd(start),
      end_date: ymd(end),
      city,
      country,
      website_url: rng.chance(0.85) ? `https://${slug}.example` : null,
      dates_validated: datesValidated(k),
      ...visibility("events", k),
      ...curatedProminence("events", k),
      ...internalFields(rng, plan, slug, 0.3),
    };
    if (rng.chance(0.5)) {
      record.description = `${name} gathers builders in ${city} for talks and workshops.`;
      record.tags = rng.sample(["defi", "infrastructure", "gaming", "regulation", "zk", "payments"], 2);
      record.relationships = { organisers: [`org-${rng.int(1, 99)}`], sponsors: rng.int(0, 40) };
    }
    yield record;
  }
}

/** Event k of the first 30: state k % 3, each state stepping further from --as-of's date. */
function ladderDates(plan: Plan, rng: Rng, k: number): [number, number] {
  const step = Math.floor(k / 3);
  const length = rng.int(0, 3) * DAY;
  switch (eventStates[k % 3]) {
    case "upcoming": {
      const start = plan.today + (2 + 9 * step) * DAY;
      return [start, start + length];
    }
    case "ongoing": {
      const start = plan.today - (step % 3) * DAY;
      return [start, plan.today + (step % 2) * DAY];
    }
    default: {
      const end = plan.today - (1 + 11 * step) * DAY;
      return [end - length, end];
    }
  }
}

function randomDates(plan: Plan, rng: Rng): [number, number] {
  const start = plan.today + rng.int(-3 * 365, 3 * 365) * DAY;
  return [start, start + rng.int(0, 4) * DAY];
}
