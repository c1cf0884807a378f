// Tokens: identity, the market observation that places a token in the top-200 universe,
// and tokenomics whose every field carries its own verification time and confidence.
import { z } from "zod";
import { UNLOCK_CADENCES } from "../../../snapshot/unlocks.ts";
import { dateTime, entityId, field, internalFields, nonNegative, nullableField, patterned, searchFields, slug, snakeCase, text, visibilityFields } from "../source-fields.ts";
import { contractsSource } from "./contracts.ts";

export const marketObservationSource = z.strictObject({
  observed_at: field(dateTime, "When the market data was observed: served only while less than 6 hours old; counts toward the reference time. Not written."),
  /** The market's own rank by market cap; 1-200 is the top-200 universe. */
  rank: z.number().int().min(1).describe("The token's rank by market cap, an integer >= 1: only 1-200 can enter the top-200 universe. Not written."),
  price_usd: field(nonNegative, "The price in US dollars. Written."),
  market_cap_usd: field(nonNegative, "The market capitalisation in US dollars. Written."),
  volume_24h_usd: field(nonNegative, "The trading volume of the last 24 hours, in US dollars. Written."),
  change_24h_pct: z.number().describe("The price change over 24 hours, in percent (a number, may be negative). Written."),
  change_7d_pct: z.number().describe("The price change over 7 days, in percent (a number, may be negative). Written."),
  /** Curators set false for assets the universe must not represent (wrapped, pegged duplicates). */
  market_eligible: z
    .boolean()
    .default(true)
    .describe("`false` keeps the token out of the market universe (wrapped or pegged duplicates). Default `true`. Not written."),
  ...internalFields,
});

/** A tokenomics field: its value, when it was last verified, and how confident the curators are (0-1). */
const verified = <T extends z.ZodType>(value: T, meaning: string) =>
  z
    .strictObject({
      value,
      verified_at: field(dateTime, "When a curator last verified the value: served only while at most 180 days old; counts toward the reference time. The oldest served is the tokenomics `as_of`."),
      confidence: z.number().min(0).max(1).describe("How confident the curators are in the value, a number from 0 to 1: served only from 0.8. Not written."),
      ...internalFields,
    })
    .optional()
    .describe(`${meaning} An object \`{value, verified_at, confidence}\`; optional.`);

export const allocationSource = z
  .strictObject({
    bucket: field(snakeCase(64), "Who receives the allocation, e.g. `team` or `community`. Written."),
    percent_supply: z.number().min(0).max(100).describe("The share of the supply, in percent (0-100). Written."),
    amount_native: field(nonNegative, "The amount, in the token's own units. Written."),
  })
  .describe("One allocation of the supply.");

export const vestingScheduleSource = z
  .strictObject({
    allocation_bucket: field(snakeCase(64), "The allocation `bucket` this schedule vests. Written."),
    start_at: field(dateTime, "When vesting starts (the token generation event): the TGE share unlocks then. Written."),
    cliff_at: nullableField(dateTime, "When the cliff ends: the steps accrued by then unlock at once; from `start_at` to `end_at`. Written."),
    end_at: field(dateTime, "When vesting ends, after `start_at`: the last step unlocks then. Written."),
    cadence: z
      .enum(UNLOCK_CADENCES)
      .describe("How often tokens unlock after the cliff: `daily`, `weekly`, `monthly`, `quarterly`, `yearly`, or `linear` (daily steps). Written."),
    percent_unlocked_at_tge: z.number().min(0).max(100).describe("The share unlocked at the token generation event, in percent (0-100). Written."),
    amount_native: field(nonNegative, "The amount vested, in the token's own units. Written."),
  })
  // The unlock rule (snapshot/unlocks.ts) needs a schedule that ends after it starts, and a cliff inside it.
  .superRefine((schedule, context) => {
    const [start, end] = [Date.parse(schedule.start_at), Date.parse(schedule.end_at)];
    // A date-time that is not one is reported by its own field.
    if (!Number.isFinite(start) || !Number.isFinite(end)) return;
    if (!(end > start)) context.addIssue({ code: "custom", path: ["end_at"], message: `expected a time after start_at ${schedule.start_at}` });
    const cliff = schedule.cliff_at === null || schedule.cliff_at === undefined ? null : Date.parse(schedule.cliff_at);
    if (cliff !== null && (cliff < start || cliff > end)) {
      context.addIssue({ code: "custom", path: ["cliff_at"], message: `expected a time from start_at ${schedule.start_at} to end_at ${schedule.end_at}` });
    }
  })
  .describe("One vesting schedule.");

export const tokenomicsSource = z.strictObject({
  model_type: verified(field(snakeCase(64), "The token model, e.g. `fixed_supply`. Written."), "The token model."),
  allocations: verified(
    z.array(allocationSource).max(100).describe("An array (at most 100) of allocations. Written."),
    "How the supply is allocated.",
  ),
  vesting_schedules: verified(
    z.array(vestingScheduleSource).max(100).describe("An array (at most 100) of vesting schedules. Written."),
    "How allocations vest.",
  ),
  utilities: verified(
    z
      .array(
        z
          .strictObject({ utility_type: field(snakeCase(64), "What the token is used for, e.g. `governance`. Written.") })
          .describe("One use of the token."),
      )
      .max(100)
      .describe("An array (at most 100) of uses. Written."),
    "What the token is used for.",
  ),
  // Excluded by the spec: accepted so curators can keep them beside the rest, never written.
  supply: z.unknown().optional().describe("Accepted and never written: any JSON value."),
  holders: z.unknown().optional().describe("Accepted and never written: any JSON value."),
  unlocks: z.unknown().optional().describe("Accepted and never written: any JSON value."),
  description: z.string().optional().describe("Accepted and never written: any string."),
  provenance: z.unknown().optional().describe("Accepted and never written: any JSON value."),
});

export const tokenSource = z
  .strictObject({
    id: field(entityId, "The token's id: news entities and trending entries name the token by it. Unique in tokens.jsonl. Written."),
    slug: field(slug, "The token's slug. Written, and searched."),
    symbol: patterned(/^[A-Za-z0-9.$-]{1,20}$/, { expected: "a symbol of 1-20 characters [A-Za-z0-9.$-]", allowed: /[A-Za-z0-9.$-]/, min: 1, max: 20 })
      .describe("The token's ticker symbol, e.g. `BTC`: 1-20 characters of A-Z, a-z, 0-9, `.`, `$` and `-`. Written, and searched."),
    name: field(text(200), "The token's name. Written, and searched."),
    /** The project that issues the token, if any. */
    project_id: nullableField(entityId, "The project that issues the token: must name a record of projects.jsonl. Not written."),
    /** Marks the token whose price heads the market snapshot: at most one each. */
    benchmark: nullableField(
      z.enum(["btc", "eth"]),
      "Marks the token whose price heads the market snapshot: `btc` or `eth`, at most one token each. Not written.",
    ),
    contracts: contractsSource,
    ...visibilityFields,
    ...searchFields,
    description: z.string().optional().describe("Accepted and never written: any string."),
    ...internalFields,
    market: nullableField(marketObservationSource, "The token's latest market observation: places the token in the top-200 universe."),
    tokenomics: nullableField(tokenomicsSource, "The token's tokenomics: each field carries its own verification time and confidence."),
  })
  .describe("A token (tokens.jsonl, one JSON object per line).");

export type TokenSource = z.input<typeof tokenSource>;
