// People: identity, verified investments (project and, optionally, the round) and roles.
import { z } from "zod";
import { date, dateTime, entityId, field, internalFields, nullableField, slug, text, searchFields, visibilityFields } from "../source-fields.ts";

export const investmentSource = z
  .strictObject({
    project_id: field(entityId, "The project invested in: must name a record of projects.jsonl. Written (as the project)."),
    /** A funding round of that project, if the investment is tied to one. */
    round_id: nullableField(entityId, "The funding round the investment was part of: must name a `funding[].id` of that project. Not written."),
    invested_at: field(dateTime, "When the investment was made: orders the investments. Not written."),
    verified: z.boolean().describe("Only verified investments are served. Not written."),
    amount_usd: z.number().optional().describe("Accepted and never written: a number."),
    ...internalFields,
  })
  .describe("An investment the person made in a project.");

export const roleSource = z
  .strictObject({
    project_id: nullableField(entityId, "The project the person works for: must name a record of projects.jsonl. Written (as the project, in the person's roles). A role names a project or a fund, not both."),
    fund_id: nullableField(entityId, "The fund the person works for: must name a record of funds.jsonl. A current role makes the person one of the fund's partners. A role names a project or a fund, not both."),
    title: z.string().optional().describe("Accepted and never written: the person's title, any string."),
    is_current: z.boolean().describe("Whether the person still holds the role. Written."),
    started_at: nullableField(date, "When the role started: orders the roles. Not written."),
    ...internalFields,
  })
  .refine((role) => (role.project_id === null) !== (role.fund_id === null), "expected project_id or fund_id: one, not both")
  // The same rule for JSON Schema, which cannot run the refinement: exactly one of the two is an id.
  .meta({
    oneOf: [
      { required: ["project_id"], properties: { project_id: { type: "string", description: "A role at a project: project_id is an id." } } },
      { required: ["fund_id"], properties: { fund_id: { type: "string", description: "A role at a fund: fund_id is an id." } } },
    ],
  })
  .describe("A role the person holds or held at a project or a fund.");

export const personSource = z
  .strictObject({
    id: field(entityId, "The person's id: news entities and trending entries name the person by it. Unique in people.jsonl. Written."),
    slug: field(slug, "The person's slug, in `/v1/people/{slug}`. Unique in people.jsonl. Written, and searched."),
    full_name: field(text(200), "The person's full name. Written, and searched."),
    ...visibilityFields,
    ...searchFields,
    bio: z.string().optional().describe("Accepted and never written: any string."),
    socials: z.unknown().optional().describe("Accepted and never written: any JSON value."),
    ...internalFields,
    investments: z
      .array(investmentSource)
      .max(10_000)
      .default([])
      .describe("An array (at most 10000) of investments; the 20 latest verified ones are served, one per project. Default `[]`."),
    roles: z
      .array(roleSource)
      .max(1000)
      .default([])
      .describe("An array (at most 1000) of roles at projects and funds; 20 of the project roles are served, current ones first; current fund roles make the person a partner of the fund. Default `[]`."),
  })
  .describe("A person (people.jsonl, one JSON object per line).");

export type PersonSource = z.input<typeof personSource>;
