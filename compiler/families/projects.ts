// Projects: identity, reviewed features, verified events and funding rounds, the daily TVL
// series with its mapping, and trend observations.
import { z } from "zod";
import { date, dateTime, entityId, internalFields, nonNegative, reviewState, slug, snakeCase, text, url, visibilityFields } from "./_common.ts";

export const hotTiers = ["viral", "hot", "rising", "early", "watch"] as const;

export const projectFeatureSource = z.strictObject({
  feature_id: entityId,
  feature_name: text(200),
  display_name: text(200),
  category: snakeCase(64),
  status: snakeCase(32),
  primary_url: url.nullable().default(null),
  docs_url: url.nullable().default(null),
  app_url: url.nullable().default(null),
  chain_ids: z.array(text(64)).max(100).default([]),
  last_verified_at: dateTime,
  review_state: reviewState,
  ...internalFields,
});

export const projectEventSource = z.strictObject({
  id: entityId,
  type: snakeCase(64),
  occurred_at: dateTime,
  verified: z.boolean(),
  title: z.string().optional(),
  description: z.string().optional(),
  ...internalFields,
});

export const fundingInvestorRef = z.strictObject({
  type: z.enum(["fund", "person"]),
  id: entityId,
});

export const fundingRoundSource = z.strictObject({
  id: entityId,
  round_type: snakeCase(64),
  amount_usd: nonNegative,
  announced_at: dateTime,
  verified: z.boolean(),
  /** Investor list: checked as references, never written. */
  investors: z.array(fundingInvestorRef).default([]),
  ...internalFields,
});

export const tvlSource = z.strictObject({
  mapping: z.strictObject({
    /** Provider series id: used to check consistency, never written. */
    series_id: text(160),
    state: z.enum(["confirmed", "conflicting", "unmapped"]),
  }),
  observations: z
    .array(z.strictObject({ date, tvl_usd: nonNegative, series_id: text(160) }))
    .max(1000)
    .default([]),
});

export const trendObservationSource = z.strictObject({
  observed_at: dateTime,
  hot_tier: z.enum(hotTiers),
  score: z.number(),
  ...internalFields,
});

export const projectSource = z.strictObject({
  id: entityId,
  // `/v1/projects/trending` is an operation's path; while that operation is unreleased the path is
  // served as a project slug, so that it answers exactly as an unknown project does (decision 5).
  slug: slug.refine((value) => value !== "trending", 'expected a slug other than "trending" (the path of an operation)'),
  name: text(200),
  ...visibilityFields,
  description: z.string().optional(),
  links: z.array(z.unknown()).optional(),
  status: z.string().optional(),
  chains: z.array(z.string()).optional(),
  ...internalFields,
  features: z.array(projectFeatureSource).max(1000).default([]),
  events: z.array(projectEventSource).max(1000).default([]),
  funding: z.array(fundingRoundSource).max(1000).default([]),
  tvl: tvlSource.nullable().default(null),
  trend: z.array(trendObservationSource).max(1000).default([]),
});

export type ProjectSource = z.input<typeof projectSource>;
