// Narratives: curated themes (restaking, real-world assets, ...) with their member projects, a dated
// timeline, and the service's trend signal that ranks them.
import { z } from "zod";
import { date, dateTime, entityId, field, internalFields, nullableField, searchFields, slug, text, visibilityFields } from "../source-fields.ts";

export const narrativeTimelineSource = z
  .strictObject({
    date: field(date, "The UTC day of the entry: orders the timeline. Written."),
    title: field(text(200), "What happened, in a line. Written."),
    ...internalFields,
  })
  .describe("One dated entry of the narrative's timeline.");

export const narrativeSignalSource = z
  .strictObject({
    score: z.number().describe("A number that ranks the narratives (highest first). Not written."),
    observed_at: field(dateTime, "When the signal was observed: the narrative is ranked only while it is less than 24 hours old; counts toward the reference time. Not written."),
    ...internalFields,
  })
  .describe("An object `{score, observed_at}`.");

export const narrativeSource = z
  .strictObject({
    id: field(entityId, "The narrative's id: news entities and trending entries name the narrative by it. Unique in narratives.jsonl. Written."),
    slug: field(slug, "The narrative's slug, in `/v1/narratives/{slug}`. Unique in narratives.jsonl. Written, and searched."),
    name: field(text(200), "The narrative's name, e.g. `Restaking`. Written, and searched."),
    projects: z
      .array(field(entityId, "A member project: must name a record of projects.jsonl, at most once in the list."))
      .max(1000)
      .default([])
      .describe("An array (at most 1000) of the ids of the narrative's projects, in the order the narrative presents them; the first 20 served projects are served. Default `[]`."),
    timeline: z
      .array(narrativeTimelineSource)
      .max(1000)
      .default([])
      .describe("An array (at most 1000) of dated entries; the 20 latest are served, oldest first. Default `[]`."),
    signal: nullableField(narrativeSignalSource, "The trend signal that ranks the narrative among the narratives (operation 22)."),
    ...visibilityFields,
    ...searchFields,
    description: z.string().optional().describe("Accepted and never written: any string."),
    ...internalFields,
  })
  .describe("A narrative (narratives.jsonl, one JSON object per line).");

export type NarrativeSource = z.input<typeof narrativeSource>;
