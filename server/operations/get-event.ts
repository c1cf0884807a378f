// 19. GET /v1/events/{slug}: one eligible Web3 in-person event; status from today's UTC date.
import { z } from "zod";
import { notFound } from "../errors.ts";
import { date, noQuery, pathSlug } from "./_schemas.ts";
import { defineOperation } from "./operation.ts";

export const getEventRequest = z.strictObject({
  params: z.strictObject({ slug: pathSlug }),
  query: noQuery,
});

const DAY_MS = 86_400_000;

export const eventStatuses = ["upcoming", "ongoing", "ended"] as const;

export const getEventResponse = z.strictObject({
  type: z.literal("event"),
  id: z.string(),
  slug: z.string(),
  name: z.string(),
  event_type: z.string(),
  status: z.enum(eventStatuses),
  start_date: date,
  end_date: date,
  city: z.string(),
  country: z.string(),
  website_url: z.string().nullable(),
});
export type GetEventResponse = z.output<typeof getEventResponse>;

/** Decision 13: upcoming before start_date, ongoing start..end inclusive, ended after end_date. */
export function eventStatus(startDate: string, endDate: string, today: string): GetEventResponse["status"] {
  if (today < startDate) return "upcoming";
  return today <= endDate ? "ongoing" : "ended";
}

export const getEvent = defineOperation({
  id: "get_event",
  request: getEventRequest,
  response: getEventResponse,
  // The status holds for the rest of the UTC day it was computed on.
  keepAnswers: { until: (_data, now) => Math.floor(now / DAY_MS) * DAY_MS + DAY_MS - 1 },
  prepare({ snapshot, now }) {
    const eventBySlug = snapshot.prepare<[string], GetEventResponse>(`
      SELECT 'event' AS type, id, slug, name, event_type, NULL AS status, start_date, end_date, city, country, website_url
      FROM events WHERE slug = ?`);
    return ({ params }): GetEventResponse | typeof notFound => {
      const event = eventBySlug.get(params.slug);
      if (event === undefined) return notFound;
      event.status = eventStatus(event.start_date, event.end_date, new Date(now()).toISOString().slice(0, 10));
      return event;
    };
  },
});
