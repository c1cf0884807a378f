// Trending signals: one record per entity per UTC day (or "live" for the current window).
import { z } from "zod";
import { dateMessage, dateTime, entityId, field, internalFields } from "../source-fields.ts";
import { xHandle } from "../x-accounts/source.ts";

const entityIdOf = (file: string) => field(entityId, `The id of a record of ${file}.`);

export const trendingEntityRef = z
  .discriminatedUnion("type", [
    z.strictObject({ type: z.literal("project").describe("The entity is a project."), id: entityIdOf("projects.jsonl") }),
    z.strictObject({ type: z.literal("token").describe("The entity is a token."), id: entityIdOf("tokens.jsonl") }),
    z.strictObject({ type: z.literal("person").describe("The entity is a person."), id: entityIdOf("people.jsonl") }),
    z.strictObject({ type: z.literal("stock").describe("The entity is a stock."), id: entityIdOf("stocks.jsonl") }),
    z.strictObject({ type: z.literal("narrative").describe("The entity is a narrative."), id: entityIdOf("narratives.jsonl") }),
    /** X accounts are named by handle: curators never see the opaque id. */
    z.strictObject({ type: z.literal("x_account").describe("The entity is an X account."), handle: field(xHandle, "The handle of a record of x_accounts.jsonl.") }),
  ])
  .describe("The entity the signal is about: `{type: project|token|person|stock|narrative, id}` or `{type: x_account, handle}`. Written as the entity.");

export const trendingSignalSource = z
  .strictObject({
    entity: trendingEntityRef,
    /** The UTC day the signal belongs to, or "live" for the current window. */
    day: z
      .union([z.literal("live"), z.iso.date({ error: (issue) => (typeof issue.input === "string" ? dateMessage(issue.input, 'the string "live" or a date YYYY-MM-DD') : undefined) })])
      .describe("The UTC day the signal belongs to, `YYYY-MM-DD`, or `live` for the current window (served while `observed_at` is less than 2 hours old)."),
    observed_at: field(dateTime, "When the signal was observed; counts toward the reference time. Not written."),
    score: z.number().describe("A number that ranks the day's entities (highest first; the highest of an entity's signals that day counts). Not written."),
    heat: z.number().optional().describe("Accepted and never written: a number."),
    signal_count: z.number().optional().describe("Accepted and never written: a number."),
    summary: z.string().optional().describe("Accepted and never written: any string."),
    clicks: z.number().optional().describe("Accepted and never written: a number."),
    raw_signals: z.unknown().optional().describe("Accepted and never written: any JSON value."),
    ...internalFields,
  })
  .describe("A trending signal: one entity's score on one UTC day or in the live window (trending.jsonl, one JSON object per line).");

export type TrendingSignalSource = z.input<typeof trendingSignalSource>;
