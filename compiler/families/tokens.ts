// Tokens: identity, the market observation that places a token in the top-200 universe,
// and tokenomics whose every field carries its own verification time and confidence.
import { z } from "zod";
import { dateTime, entityId, internalFields, nonNegative, slug, snakeCase, text, visibilityFields } from "./_common.ts";

export const marketObservationSource = z.strictObject({
  observed_at: dateTime,
  /** The market's own rank by market cap; 1-200 is the top-200 universe. */
  rank: z.number().int().min(1),
  price_usd: nonNegative,
  market_cap_usd: nonNegative,
  volume_24h_usd: nonNegative,
  change_24h_pct: z.number(),
  change_7d_pct: z.number(),
  /** Curators set false for assets the universe must not represent (wrapped, pegged duplicates). */
  market_eligible: z.boolean().default(true),
  ...internalFields,
});

/** A tokenomics field: its value, when it was last verified, and how confident the curators are (0-1). */
const verified = <T extends z.ZodType>(value: T) =>
  z.strictObject({
    value,
    verified_at: dateTime,
    confidence: z.number().min(0).max(1),
    ...internalFields,
  });

export const allocationSource = z.strictObject({
  bucket: snakeCase(64),
  percent_supply: z.number().min(0).max(100),
  amount_native: nonNegative,
});

export const vestingScheduleSource = z.strictObject({
  allocation_bucket: snakeCase(64),
  start_at: dateTime,
  cliff_at: dateTime.nullable().default(null),
  end_at: dateTime,
  cadence: snakeCase(32),
  percent_unlocked_at_tge: z.number().min(0).max(100),
  amount_native: nonNegative,
});

export const tokenomicsSource = z.strictObject({
  model_type: verified(snakeCase(64)).optional(),
  allocations: verified(z.array(allocationSource).max(100)).optional(),
  vesting_schedules: verified(z.array(vestingScheduleSource).max(100)).optional(),
  utilities: verified(z.array(z.strictObject({ utility_type: snakeCase(64) })).max(100)).optional(),
  // Excluded by the spec: accepted so curators can keep them beside the rest, never written.
  supply: z.unknown().optional(),
  holders: z.unknown().optional(),
  unlocks: z.unknown().optional(),
  description: z.string().optional(),
  provenance: z.unknown().optional(),
});

export const tokenSource = z.strictObject({
  id: entityId,
  slug,
  symbol: z.string().regex(/^[A-Za-z0-9.$-]{1,20}$/, "expected a symbol of 1-20 characters"),
  name: text(200),
  /** The project that issues the token, if any. */
  project_id: entityId.nullable().default(null),
  /** Marks the token whose price heads the market snapshot: at most one each. */
  benchmark: z.enum(["btc", "eth"]).nullable().default(null),
  ...visibilityFields,
  description: z.string().optional(),
  ...internalFields,
  market: marketObservationSource.nullable().default(null),
  tokenomics: tokenomicsSource.nullable().default(null),
});

export type TokenSource = z.input<typeof tokenSource>;
