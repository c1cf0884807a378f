// In-person Web3 events: only events whose dates a curator validated are served.
import { z } from "zod";
import { date, entityId, internalFields, slug, snakeCase, text, url, visibilityFields } from "./_common.ts";

export const eventSource = z.strictObject({
  id: entityId,
  slug,
  name: text(200),
  event_type: snakeCase(64),
  start_date: date,
  end_date: date,
  city: text(120),
  country: text(120),
  website_url: url.nullable().default(null),
  dates_validated: z.boolean(),
  ...visibilityFields,
  description: z.string().optional(),
  tags: z.array(z.string()).optional(),
  relationships: z.unknown().optional(),
  ...internalFields,
});

export type EventSource = z.input<typeof eventSource>;
