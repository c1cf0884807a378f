// A project's funding rounds, regenerated on demand: projects write them, people reference
// them (round_id) without the rounds being kept in memory.
import { fundIdentity, personIdentity } from "./_identity.ts";
import { DAY, nextVisible, type Plan } from "./plan.ts";
import { rngFor } from "./_prng.ts";

const ROUND_TYPES = ["pre_seed", "seed", "series_a", "series_b", "series_c", "strategic", "private"] as const;

export interface Round {
  id: string;
  round_type: string;
  amount_usd: number;
  /** ms since epoch */
  announced: number;
  verified: boolean;
  investors: { type: "fund" | "person"; id: string }[];
}

/** Project 7 has more rounds than the 20 an answer may hold. */
export const roundCount = (projectIndex: number): number =>
  projectIndex === 7 ? 28 : rngFor("round-count", projectIndex).int(0, 4);

/** `withInvestors: false` skips naming the investors (people only need round ids and dates). */
export function fundingRounds(plan: Plan, projectIndex: number, withInvestors = true): Round[] {
  const count = roundCount(projectIndex);
  const rng = rngFor("rounds", projectIndex);
  const investorRng = rngFor("round-investors", projectIndex);
  const rounds: Round[] = [];
  let announced = plan.asOf - rng.int(500, 1800) * DAY;
  for (let j = 0; j < count; j += 1) {
    announced = Math.min(announced + rng.int(20, 240) * DAY + rng.int(0, DAY - 1), plan.asOf - (count - j) * DAY);
    const investors: Round["investors"] = [];
    for (let n = withInvestors ? investorRng.int(1, 4) : 0; n > 0; n -= 1) {
      const investor = investorRng.chance(0.75)
        ? { type: "fund" as const, id: fundIdentity(nextVisible(plan, "funds", investorRng.int(0, plan.counts.funds - 1))).id }
        : { type: "person" as const, id: personIdentity(nextVisible(plan, "people", investorRng.int(0, plan.counts.people - 1))).id };
      if (!investors.some((known) => known.id === investor.id)) investors.push(investor);
    }
    rounds.push({
      id: `rnd_${String(projectIndex + 1).padStart(4, "0")}_${String(j + 1).padStart(2, "0")}`,
      round_type: count > ROUND_TYPES.length ? rng.pick(ROUND_TYPES) : ROUND_TYPES[Math.min(j + rng.int(0, 1), ROUND_TYPES.length - 1)]!,
      amount_usd: Math.round(rng.float(0.4, 3) * 2 ** Math.min(j, 5) * 10) * 100_000,
      announced,
      verified: (projectIndex + j) % 5 !== 3,
      investors,
    });
  }
  return rounds;
}
