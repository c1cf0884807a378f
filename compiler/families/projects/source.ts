// Projects: identity, reviewed features, verified events and funding rounds, the daily TVL
// series with its mapping, and trend observations.
import { z } from "zod";
import {
  date, dateTime, entityId, field, internalFields, nonNegative, nullableField, reviewState, slug, snakeCase, text, url, searchFields, visibilityFields,
} from "../source-fields.ts";

export const hotTiers = ["viral", "hot", "rising", "early", "watch"] as const;

export const projectFeatureSource = z
  .strictObject({
    feature_id: field(entityId, "The feature's id, unique within the project. Written."),
    feature_name: field(text(200), "The feature's internal name. Written."),
    display_name: field(text(200), "The name shown to API consumers. Written."),
    category: field(snakeCase(64), "The feature's category, e.g. `dex` or `lending`. Written."),
    status: field(snakeCase(32), "The feature's status, e.g. `live` or `beta`. Written."),
    primary_url: nullableField(url, "The feature's main page. Written."),
    docs_url: nullableField(url, "The feature's documentation. Written."),
    app_url: nullableField(url, "Where to use the feature. Written."),
    chain_ids: z
      .array(field(text(64), "A chain the feature runs on."))
      .max(100)
      .default([])
      .describe("An array (at most 100) of the chains the feature runs on, each text of 1-64 characters. Written. Default `[]`."),
    last_verified_at: field(dateTime, "When a curator last verified the feature: orders the features, and counts toward the reference time. Written."),
    review_state: reviewState.describe("The curators' review: only `reviewed` features are served. Not written."),
    ...internalFields,
  })
  .describe("A feature of the project (a product or a part of one).");

export const projectEventSource = z
  .strictObject({
    id: field(entityId, "The event's id, unique within the project. Written."),
    type: field(snakeCase(64), "What happened, e.g. `mainnet_launch`. Written."),
    occurred_at: field(dateTime, "When it happened. Written."),
    verified: z.boolean().describe("Only verified events are served. Not written."),
    title: z.string().optional().describe("Accepted and never written: any string."),
    description: z.string().optional().describe("Accepted and never written: any string."),
    ...internalFields,
  })
  .describe("A dated event in the project's history (a launch, an upgrade, an incident).");

export const fundingInvestorRef = z
  .strictObject({
    type: z.enum(["fund", "person"]).describe("Whether the investor is a fund (funds.jsonl) or a person (people.jsonl)."),
    id: field(entityId, "The investor's id: must name a record of that file."),
  })
  .describe("An investor in the round.");

export const fundingRoundSource = z
  .strictObject({
    id: field(entityId, "The round's id, unique within the project; people's investments name it in `round_id`. Not written."),
    round_type: field(snakeCase(64), "The kind of round, e.g. `seed` or `series_b`. Written."),
    amount_usd: field(nonNegative, "The amount raised, in US dollars. Written."),
    announced_at: field(dateTime, "When the round was announced. Written."),
    verified: z.boolean().describe("Only verified rounds are served. Not written."),
    investors: z
      .array(fundingInvestorRef)
      .default([])
      .describe("An array of the round's investors, each `{type: fund|person, id}`: checked as references, never written. Default `[]`."),
    ...internalFields,
  })
  .describe("A funding round of the project.");

export const tvlSource = z.strictObject({
  mapping: z
    .strictObject({
      series_id: field(text(160), "The data provider's TVL series id that this project maps to: used to check consistency, never written."),
      state: z
        .enum(["confirmed", "conflicting", "unmapped"])
        .describe("The state of the mapping: TVL is served only when `confirmed`. Not written."),
    })
    .describe("How the project maps to a provider's TVL series."),
  observations: z
    .array(
      z
        .strictObject({
          date: field(date, "The UTC day of the observation; counts toward the reference time (at 00:00Z). The latest is written."),
          tvl_usd: field(nonNegative, "The total value locked that day, in US dollars. The latest is written."),
          series_id: field(text(160), "The provider series the observation came from: TVL is served only when the latest observation's equals `mapping.series_id`. Not written."),
        })
        .describe("One day's TVL."),
    )
    .max(1000)
    .default([])
    .describe("An array (at most 1000) of daily observations; only the latest is served, while at most 2 days old. Default `[]`."),
});

export const trendObservationSource = z
  .strictObject({
    observed_at: field(dateTime, "When the trend was observed: the latest observation counts, and counts toward the reference time. Not written."),
    hot_tier: z.enum(hotTiers).describe("How hot the project is. The latest observation's tier is written."),
    score: z.number().describe("A number that ranks trending projects. Not written."),
    ...internalFields,
  })
  .describe("An observation of how much attention the project gets.");

export const projectSource = z
  .strictObject({
    id: field(entityId, "The project's id: other records name the project by it. Unique in projects.jsonl. Written."),
    // `/v1/projects/trending` is an operation's path; while that operation is unreleased the path is
    // served as a project slug, so that it answers exactly as an unknown project does (decision 5).
    slug: field(
      slug.refine((value) => value !== "trending", 'expected a slug other than "trending" (the path of an operation)').meta({ not: { const: "trending" } }),
      "The project's slug, in `/v1/projects/{slug}`: unique in projects.jsonl, and not `trending` (an operation's path). Written, and searched.",
    ),
    name: field(text(200), "The project's name. Written, and searched."),
    ...visibilityFields,
    ...searchFields,
    description: z.string().optional().describe("Accepted and never written: any string."),
    links: z.array(z.unknown()).optional().describe("Accepted and never written: an array of any values (not an object)."),
    status: z.string().optional().describe("Accepted and never written: any string."),
    chains: z.array(z.string()).optional().describe("Accepted and never written: an array of strings."),
    ...internalFields,
    features: z
      .array(projectFeatureSource)
      .max(1000)
      .default([])
      .describe("An array (at most 1000) of the project's features; the 20 most recently verified reviewed ones are served. Default `[]`."),
    events: z
      .array(projectEventSource)
      .max(1000)
      .default([])
      .describe("An array (at most 1000) of dated events; the 20 latest verified ones are served. Default `[]`."),
    funding: z
      .array(fundingRoundSource)
      .max(1000)
      .default([])
      .describe("An array (at most 1000) of funding rounds; the 20 latest verified ones are served. Default `[]`."),
    tvl: nullableField(tvlSource, "The project's total value locked (TVL): the mapping to a provider's series, and the daily series."),
    trend: z
      .array(trendObservationSource)
      .max(1000)
      .default([])
      .describe("An array (at most 1000) of trend observations; the latest decides the project's place in trending projects. Default `[]`."),
  })
  .describe("A project (projects.jsonl, one JSON object per line).");

export type ProjectSource = z.input<typeof projectSource>;
