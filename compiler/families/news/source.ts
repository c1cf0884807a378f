// News stories: only explicitly curated stories reach the snapshot.
import { z } from "zod";
import { dateTime, entityId, field, internalFields, prose, searchFields, snakeCase, text } from "../source-fields.ts";

export const storyIdPattern = /^story:[0-9a-f]{8}-[0-9a-f]{4}-[1-5][0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;

export const newsEntityRef = z
  .strictObject({
    type: z.enum(["project", "token", "person", "fund"]).describe("The kind of entity: which file `id` names a record of."),
    id: field(entityId, "The entity's id: must name a record of that file. Written with the entity's slug and name."),
  })
  .describe("An entity the story is about.");

export const newsSource = z
  .strictObject({
    id: z
      .string()
      .regex(storyIdPattern, "expected story:<uuid> (lower-case hex, RFC 4122 version 1-5)")
      .describe("The story's id, in `/v1/news/{id}`: `story:` and a lower-case RFC 4122 UUID of version 1-5, e.g. `story:0b5e6f1c-3d2a-4c8e-9f10-2a3b4c5d6e7f`. Unique in news.jsonl. Written."),
    title: field(text(500), "The headline. Written."),
    summary: field(prose(4000), "A summary of the story. Written."),
    published_at: field(dateTime, "When the story was published. Written."),
    sentiment: field(snakeCase(32), "The story's sentiment, e.g. `positive`. Written."),
    language: z
      .string()
      .regex(/^[a-z]{2,3}(?:-[A-Z]{2})?$/, "expected a language tag such as en or pt-BR")
      .describe("The story's language tag: 2-3 lower-case letters, optionally `-` and 2 upper-case letters, e.g. `en` or `pt-BR`. Written."),
    /** Only stories a curator explicitly approved are served. */
    curated: z.boolean().describe("Only stories a curator approved (`true`) are served. Not written."),
    entities: z
      .array(newsEntityRef)
      .max(50)
      .default([])
      .describe("An array (at most 50) of the entities the story is about, each `{type: project|token|person|fund, id}`. Default `[]`."),
    hidden: z.boolean().default(false).describe("`true` keeps the story out of the snapshot. Default `false`."),
    deleted: z.boolean().default(false).describe("`true` marks the story deleted: it never reaches the snapshot. Default `false`."),
    ...searchFields,
    url: z.string().optional().describe("Accepted and never written: any string (not checked as a URL)."),
    publisher: z.unknown().optional().describe("Accepted and never written: any JSON value."),
    body: z.string().optional().describe("Accepted and never written: any string."),
    ...internalFields,
  })
  .describe("A news story (news.jsonl, one JSON object per line).");

export type NewsSource = z.input<typeof newsSource>;
