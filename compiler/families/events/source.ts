// In-person Web3 events: only events whose dates a curator validated are served.
import { z } from "zod";
import { date, entityId, field, internalFields, nullableField, slug, snakeCase, text, url, searchFields, visibilityFields } from "../source-fields.ts";

export const eventSource = z
  .strictObject({
    id: field(entityId, "The event's id. Unique in events.jsonl. Written."),
    slug: field(slug, "The event's slug, in `/v1/events/{slug}`. Unique in events.jsonl. Written."),
    name: field(text(200), "The event's name. Written."),
    event_type: field(snakeCase(64), "The kind of event, e.g. `conference` or `hackathon`. Written."),
    start_date: field(date, "The first day. Written; with `end_date`, it decides the served status (`upcoming`, `ongoing`, `ended`)."),
    end_date: field(date, "The last day: not before `start_date`. Written."),
    city: field(text(120), "The city. Written."),
    country: field(text(120), "The country. Written."),
    website_url: nullableField(url, "The event's website. Written."),
    dates_validated: z.boolean().describe("Only events whose dates a curator validated (`true`) are served. Not written."),
    ...visibilityFields,
    ...searchFields,
    description: z.string().optional().describe("Accepted and never written: any string."),
    tags: z.array(z.string()).optional().describe("Accepted and never written: an array of strings."),
    relationships: z.unknown().optional().describe("Accepted and never written: any JSON value."),
    ...internalFields,
  })
  .describe("An in-person event (events.jsonl, one JSON object per line).");

export type EventSource = z.input<typeof eventSource>;
