// funds.jsonl: identity, fund type and the score that ranks them, re-scored within the last week.
import type { FundSource } from "../compiler/families/funds/source.ts";
import { fundIdentity, personIdentity } from "./_identity.ts";
import { internalFields } from "./_internal.ts";
import { DAY, HOUR, iso, nextVisible, curatedProminence, visibility, type Plan } from "./plan.ts";
import { rngFor } from "./_prng.ts";

export function* fundRecords(plan: Plan): Generator<FundSource> {
  for (let k = 0; k < plan.counts.funds; k += 1) {
    const rng = rngFor("fund", k);
    const identity = fundIdentity(k);
    const record: FundSource = {
      ...identity,
      score: rng.float(20, 99.5),
      score_updated_at: iso(plan.asOf - rng.int(HOUR, 6 * DAY)),
      ...visibility("funds", k),
      ...curatedProminence("funds", k),
      ...internalFields(rng, plan, identity.slug, 0.3),
    };
    if (rng.chance(0.5)) {
      record.description = `${identity.name} backs early-stage teams in invented sample markets.`;
      record.website = `https://${identity.slug}.example`;
      record.socials = { x: `@${identity.slug.replace(/-/g, "").slice(0, 15)}` };
      record.portfolio_count = rng.int(5, 400);
      record.partners = [personIdentity(nextVisible(plan, "people", k * 3)).id];
    }
    yield record;
  }
}
