// Funds: identity, fund type and the score that ranks them.
import { z } from "zod";
import { dateTime, entityId, field, internalFields, slug, text, searchFields, visibilityFields } from "../source-fields.ts";

export const fundTypes = ["vc", "angel", "accelerator", "launchpad", "cvc", "family-office"] as const;

export const fundSource = z
  .strictObject({
    id: field(entityId, "The fund's id: news entities, funding-round investors and people's roles name the fund by it. Unique in funds.jsonl. Written."),
    // `/v1/funds/rankings` is an operation's path, so a fund with that slug could never be opened.
    slug: field(
      slug.refine((value) => value !== "rankings", 'expected a slug other than "rankings" (the path of an operation)').meta({ not: { const: "rankings" } }),
      "The fund's slug, in `/v1/funds/{slug}`: unique in funds.jsonl, and not `rankings` (an operation's path). Written, and searched.",
    ),
    name: field(text(200), "The fund's name. Written, and searched."),
    fund_type: z.enum(fundTypes).describe("The kind of fund. Written."),
    score: z.number().describe("A number that ranks funds in the fund rankings (highest first). Not written."),
    score_updated_at: field(dateTime, "When the score was last computed: rankings older than 30 days are not served; counts toward the reference time. Not written."),
    ...visibilityFields,
    ...searchFields,
    description: z.string().optional().describe("Accepted and never written: any string."),
    website: z.string().optional().describe("Accepted and never written: any string (not checked as a URL)."),
    socials: z.unknown().optional().describe("Accepted and never written: any JSON value."),
    portfolio_count: z.number().optional().describe("Accepted and never written: a number (the served portfolio comes from the funding rounds that name the fund)."),
    partners: z.unknown().optional().describe("Accepted and never written: any JSON value (the served partners come from people's current roles at the fund)."),
    ...internalFields,
  })
  .describe("A fund (funds.jsonl, one JSON object per line).");

export type FundSource = z.input<typeof fundSource>;
