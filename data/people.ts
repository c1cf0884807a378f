// people.jsonl: identity, investments (in visible projects, often tied to one of the project's
// rounds) and roles at projects and funds (a fund's current ones make its partners).
import type { PersonSource } from "../compiler/families/people/source.ts";
import { fundIdentity, personIdentity, projectIdentity } from "./_identity.ts";
import { internalFields } from "./_internal.ts";
import { DAY, iso, nextVisible, curatedProminence, visibility, ymd, type Plan } from "./plan.ts";
import { rngFor, type Rng } from "./_prng.ts";
import { fundingRounds } from "./_rounds.ts";

type Investment = NonNullable<PersonSource["investments"]>[number];
type Role = NonNullable<PersonSource["roles"]>[number];

const TITLES = ["Founder", "Co-founder", "CEO", "CTO", "Head of Research", "Advisor", "Core Contributor", "Board Member"] as const;
const FUND_TITLES = ["General Partner", "Partner", "Venture Partner", "Principal", "Investment Director"] as const;

/** Person 2 invested in more projects than the 20 an answer may hold; person 5 twice in one. */
const OVER_CAP_PERSON = 2;
const REPEAT_INVESTOR = 5;

export function* personRecords(plan: Plan): Generator<PersonSource> {
  for (let k = 0; k < plan.counts.people; k += 1) yield personRecord(plan, k);
}

function personRecord(plan: Plan, k: number): PersonSource {
  const rng = rngFor("person", k);
  const identity = personIdentity(k);
  return {
    ...identity,
    ...visibility("people", k),
    ...curatedProminence("people", k),
    ...(rng.chance(0.4) ? { bio: `${identity.full_name} works on invented sample projects.` } : {}),
    ...(rng.chance(0.3) ? { socials: { x: `@${identity.slug.replace(/-/g, "_").slice(0, 15)}` } } : {}),
    ...internalFields(rng, plan, identity.slug, 0.3),
    investments: investments(plan, rng, k),
    roles: [...roles(plan, rng, k), ...fundRoles(plan, k)],
  };
}

/** One person in five is a partner at a fund (one in ten at two), one in five was one. */
function fundRoles(plan: Plan, k: number): Role[] {
  const rng = rngFor("person-fund-roles", k);
  const role = (fundIndex: number, current: boolean): Role => ({
    fund_id: fundIdentity(nextVisible(plan, "funds", fundIndex)).id,
    title: rng.pick(FUND_TITLES),
    is_current: current,
    started_at: rng.chance(0.85) ? ymd(plan.asOf - rng.int(current ? 90 : 900, current ? 1500 : 3000) * DAY) : null,
  });
  const result: Role[] = [];
  if (k % 5 === 1) result.push(role(k * 7 + 2, true));
  if (k % 10 === 6) result.push(role(k * 5 + 3, true));
  if (k % 5 === 3) result.push(role(k * 3 + 1, false));
  // Two roles of one person at one fund are one partner.
  return result.filter((r, i) => result.findIndex((o) => o.fund_id === r.fund_id) === i);
}

function investments(plan: Plan, rng: Rng, k: number): Investment[] {
  const count = k === OVER_CAP_PERSON ? 28 : k % 3 === 1 ? 0 : rng.int(0, 5);
  const projects = new Set<number>();
  let cursor = rng.int(0, plan.counts.projects - 1);
  while (projects.size < count) {
    cursor = nextVisible(plan, "projects", cursor + (k === OVER_CAP_PERSON ? 1 : rng.int(1, 9)));
    projects.add(cursor);
  }
  const result: Investment[] = [];
  for (const projectIndex of projects) {
    const projectId = projectIdentity(projectIndex).id;
    const verifiedRounds = fundingRounds(plan, projectIndex, false).filter((round) => round.verified);
    const round = verifiedRounds.length > 0 && rng.chance(0.7) ? rng.pick(verifiedRounds) : null;
    const investedAt = round ? round.announced : plan.asOf - rng.int(30, 1500) * DAY;
    result.push({
      project_id: projectId,
      round_id: round ? round.id : null,
      invested_at: iso(investedAt),
      verified: (k + result.length) % 7 !== 3,
      ...(rng.chance(0.3) ? { amount_usd: rng.int(5, 500) * 10_000 } : {}),
      ...(rng.chance(0.2) ? { evidence: [{ kind: "cap_table_excerpt", confirmed_by: "curator" }] } : {}),
    });
  }
  if (k === REPEAT_INVESTOR && result.length > 0) {
    const first = result[0]!;
    result.push({ ...first, round_id: null, invested_at: iso(Date.parse(first.invested_at) - 90 * DAY), verified: true });
  }
  return result;
}

function roles(plan: Plan, rng: Rng, k: number): Role[] {
  const count = k % 4 === 2 ? 0 : rng.int(1, 3);
  const seen = new Set<number>();
  const result: Role[] = [];
  for (let j = 0; j < count; j += 1) {
    const projectIndex = nextVisible(plan, "projects", k * 5 + j * 11 + rng.int(0, 3));
    if (seen.has(projectIndex)) continue;
    seen.add(projectIndex);
    const current = j === 0 || rng.chance(0.4);
    result.push({
      project_id: projectIdentity(projectIndex).id,
      title: rng.pick(TITLES),
      is_current: current,
      started_at: rng.chance(0.8) ? ymd(plan.asOf - rng.int(current ? 60 : 700, current ? 1400 : 2500) * DAY) : null,
      ...(rng.chance(0.15) ? { sources: [{ url: `https://team.profiles.example/${k + 1}`, title: "Team page" }] } : {}),
    });
  }
  return result;
}
