// People: identity, verified investments (project and, optionally, the round) and roles.
import { z } from "zod";
import { date, dateTime, entityId, internalFields, slug, text, visibilityFields } from "./_common.ts";

export const investmentSource = z.strictObject({
  project_id: entityId,
  /** A funding round of that project, if the investment is tied to one. */
  round_id: entityId.nullable().default(null),
  invested_at: dateTime,
  verified: z.boolean(),
  amount_usd: z.number().optional(),
  ...internalFields,
});

export const roleSource = z.strictObject({
  project_id: entityId,
  /** Titles are kept for curators and never written. */
  title: z.string().optional(),
  is_current: z.boolean(),
  started_at: date.nullable().default(null),
  ...internalFields,
});

export const personSource = z.strictObject({
  id: entityId,
  slug,
  full_name: text(200),
  ...visibilityFields,
  bio: z.string().optional(),
  socials: z.unknown().optional(),
  ...internalFields,
  investments: z.array(investmentSource).max(10_000).default([]),
  roles: z.array(roleSource).max(1000).default([]),
});

export type PersonSource = z.input<typeof personSource>;
