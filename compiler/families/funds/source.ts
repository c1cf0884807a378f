// Funds: identity, fund type and the score that ranks them.
import { z } from "zod";
import { dateTime, entityId, field, internalFields, slug, text, searchFields, visibilityFields } from "../source-fields.ts";

export const fundTypes = ["vc", "angel", "accelerator", "launchpad", "cvc", "family-office"] as const;

export const fundSource = z
  .strictObject({
    id: field(entityId, "The fund's id: news entities and funding-round investors name the fund by it. Unique in funds.jsonl. Written."),
    slug: field(slug, "The fund's slug. Unique in funds.jsonl. Written, and searched."),
    name: field(text(200), "The fund's name. Written, and searched."),
    fund_type: z.enum(fundTypes).describe("The kind of fund. Written."),
    score: z.number().describe("A number that ranks funds in the fund rankings (highest first). Not written."),
    score_updated_at: field(dateTime, "When the score was last computed: rankings older than 30 days are not served; counts toward the reference time. Not written."),
    ...visibilityFields,
    ...searchFields,
    description: z.string().optional().describe("Accepted and never written: any string."),
    website: z.string().optional().describe("Accepted and never written: any string (not checked as a URL)."),
    socials: z.unknown().optional().describe("Accepted and never written: any JSON value."),
    portfolio_count: z.number().optional().describe("Accepted and never written: a number."),
    partners: z.unknown().optional().describe("Accepted and never written: any JSON value."),
    ...internalFields,
  })
  .describe("A fund (funds.jsonl, one JSON object per line).");

export type FundSource = z.input<typeof fundSource>;
