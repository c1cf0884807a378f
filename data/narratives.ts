// narratives.jsonl: themes with their member projects (visible ones, in a curated order), a dated
// timeline, and a trend signal observed within the last hours; some signals stale, one narrative
// without one, one with more projects and one with more timeline entries than an answer holds.
import type { NarrativeSource } from "../compiler/families/narratives/source.ts";
import { narrativeIdentity, projectIdentity } from "./_identity.ts";
import { internalFields } from "./_internal.ts";
import { DAY, HOUR, MINUTE, curatedProminence, iso, nextVisible, visibility, ymd, type Plan } from "./plan.ts";
import { rngFor, type Rng } from "./_prng.ts";

/** Narrative 2 has more projects than the 20 an answer holds; narrative 4 a longer timeline. */
const MANY_PROJECTS = 2;
const LONG_TIMELINE = 4;
/** Narrative 1 also names a hidden project: the compiler drops that member, not the narrative. */
const HIDDEN_MEMBER = 1;
const HIDDEN_PROJECT = 17;

/** No signal: the narrative is served but not ranked. */
const isUnsignalled = (k: number): boolean => k % 9 === 8;
/** A signal observed 30-50 hours ago: stale, so the narrative is not ranked. */
export const isStaleNarrativeSignal = (k: number): boolean => k % 6 === 5;

const MILESTONES = [
  (project: string) => `${project} launches on mainnet`,
  (project: string) => `${project} passes $100M in deposits`,
  (project: string) => `${project} ships its second version`,
  (project: string) => `${project} opens its governance to token holders`,
  (project: string) => `${project} completes a security audit`,
  (project: string) => `${project} joins the theme with a new product`,
] as const;

export function* narrativeRecords(plan: Plan): Generator<NarrativeSource> {
  for (let k = 0; k < plan.counts.narratives; k += 1) yield narrativeRecord(plan, k);
}

function narrativeRecord(plan: Plan, k: number): NarrativeSource {
  const rng = rngFor("narrative", k);
  const identity = narrativeIdentity(k);
  const projects = members(plan, rng, k);
  const record: NarrativeSource = {
    ...identity,
    projects: projects.map((index) => projectIdentity(index).id),
    timeline: timeline(plan, rng, k, projects),
    signal: isUnsignalled(k)
      ? null
      : {
          score: rng.float(5, 100),
          observed_at: iso(plan.asOf - (isStaleNarrativeSignal(k) ? rng.int(30 * HOUR, 50 * HOUR) : rng.int(10 * MINUTE, 10 * HOUR))),
          ...internalFields(rng, plan, identity.slug, 0.3),
        },
    ...visibility("narratives", k),
    ...curatedProminence("narratives", k),
    ...internalFields(rng, plan, identity.slug, 0.35),
  };
  if (rng.chance(0.5)) record.description = `${identity.name}: invented sample coverage of a market theme.`;
  return record;
}

/** The member projects' indices, in the narrative's order. */
function members(plan: Plan, rng: Rng, k: number): number[] {
  const count = Math.min(k === MANY_PROJECTS ? 24 : rng.int(3, 9), plan.counts.projects - 10);
  const chosen = new Set<number>();
  let cursor = rng.int(0, plan.counts.projects - 1);
  while (chosen.size < count) {
    cursor = nextVisible(plan, "projects", cursor + (k === MANY_PROJECTS ? 1 : rng.int(1, 7)));
    chosen.add(cursor);
  }
  const indices = [...chosen];
  if (k === HIDDEN_MEMBER && plan.counts.projects > HIDDEN_PROJECT) indices.splice(1, 0, HIDDEN_PROJECT);
  return indices;
}

function timeline(plan: Plan, rng: Rng, k: number, projects: readonly number[]): NonNullable<NarrativeSource["timeline"]> {
  const count = k === LONG_TIMELINE ? 26 : rng.int(2, 6);
  const entries: NonNullable<NarrativeSource["timeline"]> = [];
  let at = plan.asOf - rng.int(600, 1100) * DAY;
  for (let j = 0; j < count; j += 1) {
    at += rng.int(10, 40) * DAY;
    const project = projectIdentity(projects[j % projects.length]!).name;
    entries.push({ date: ymd(Math.min(at, plan.asOf - DAY)), title: rng.pick(MILESTONES)(project) });
  }
  // Curators add entries as they come, not always in date order.
  if (entries.length > 2) entries.push(entries.shift()!);
  return entries;
}
