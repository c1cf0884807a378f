// News stories: only explicitly curated stories reach the snapshot.
import { z } from "zod";
import { dateTime, entityId, internalFields, prose, snakeCase, text } from "./_common.ts";

export const storyIdPattern = /^story:[0-9a-f]{8}-[0-9a-f]{4}-[1-5][0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;

export const newsEntityRef = z.strictObject({
  type: z.enum(["project", "token", "person", "fund"]),
  id: entityId,
});

export const newsSource = z.strictObject({
  id: z.string().regex(storyIdPattern, "expected story:<uuid> (lower-case hex, RFC 4122 version 1-5)"),
  title: text(500),
  summary: prose(4000),
  published_at: dateTime,
  sentiment: snakeCase(32),
  language: z.string().regex(/^[a-z]{2,3}(?:-[A-Z]{2})?$/, "expected a language tag such as en or pt-BR"),
  /** Only stories a curator explicitly approved are served. */
  curated: z.boolean(),
  entities: z.array(newsEntityRef).max(50).default([]),
  hidden: z.boolean().default(false),
  deleted: z.boolean().default(false),
  url: z.string().optional(),
  publisher: z.unknown().optional(),
  body: z.string().optional(),
  ...internalFields,
});

export type NewsSource = z.input<typeof newsSource>;
