// Funds: identity, fund type and the score that ranks them.
import { z } from "zod";
import { dateTime, entityId, internalFields, slug, text, visibilityFields } from "./_common.ts";

export const fundTypes = ["vc", "angel", "accelerator", "launchpad", "cvc", "family-office"] as const;

export const fundSource = z.strictObject({
  id: entityId,
  slug,
  name: text(200),
  fund_type: z.enum(fundTypes),
  score: z.number(),
  score_updated_at: dateTime,
  ...visibilityFields,
  description: z.string().optional(),
  website: z.string().optional(),
  socials: z.unknown().optional(),
  portfolio_count: z.number().optional(),
  partners: z.unknown().optional(),
  ...internalFields,
});

export type FundSource = z.input<typeof fundSource>;
