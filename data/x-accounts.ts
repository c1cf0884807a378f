// x_accounts.jsonl: handles linked to visible projects and people (a few unlinked). Hidden or
// deleted accounts are the account's own flags; the entity linked is always visible.
import type { XAccountSource } from "../compiler/families/x-accounts/source.ts";
import { xAccountIdentity } from "./_identity.ts";
import { internalFields } from "./_internal.ts";
import { DAY, iso, curatedProminence, visibility, type Plan } from "./plan.ts";
import { rngFor } from "./_prng.ts";

export function* xAccountRecords(plan: Plan): Generator<XAccountSource> {
  for (let k = 0; k < plan.counts.xAccounts; k += 1) {
    const rng = rngFor("x-account", k);
    const { handle, link } = xAccountIdentity(plan, k);
    const record: XAccountSource = {
      handle: k % 3 === 0 ? `@${handle}` : handle,
      linked_entity: link === null ? null : { type: link.type, id: link.id },
      ...visibility("xAccounts", k),
      ...curatedProminence("xAccounts", k),
      profile_url: `https://x.com/${handle}`,
      display_name: link === null ? handle : link.name,
      ...internalFields(rng, plan, handle, 0.25),
    };
    if (rng.chance(0.6)) {
      record.bio = link === null ? "Commentary on invented sample markets." : `Official account of ${link.name}.`;
      record.metrics = {
        followers: rng.int(100, 2_000_000),
        following: rng.int(10, 3_000),
        posts: rng.int(50, 60_000),
        measured_at: iso(plan.asOf - rng.int(1, 14) * DAY),
      };
    }
    yield record;
  }
}
