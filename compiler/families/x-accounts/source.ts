// X accounts: the handle is read to derive an opaque id and a search hash, and never written.
import { z } from "zod";
import { entityId, field, internalFields, nullableField, patterned, searchFields, visibilityFields } from "../source-fields.ts";

/** A handle written as a profile URL (`https://x.com/foo`, `twitter.com/foo?lang=en`) or with a query: the handle alone. */
function handleInside(value: string): string | undefined {
  const match = /^(?:(?:https?:\/\/)?(?:(?:www|mobile)\.)?(?:twitter|x)\.com\/)?@?([A-Za-z0-9_]{1,15})(?:[/?#].*)?$/i.exec(value.trim());
  return match?.[1];
}

export const xHandle = patterned(/^@?[A-Za-z0-9_]{1,15}$/, {
  expected: "an X handle of 1-15 characters [A-Za-z0-9_]", allowed: /[A-Za-z0-9_]/, min: 1, max: 15, prefix: "@",
}, { suggestion: handleInside })
  .describe("An X handle: 1-15 characters of A-Z, a-z, 0-9 and `_`, with or without a leading `@`; case is ignored.");

export const xAccountSource = z
  .strictObject({
    handle: field(xHandle, "The account's handle: unique in x_accounts.jsonl; hashed into an opaque id and never written."),
    /** Must name a visible project or person. */
    linked_entity: nullableField(
      z.strictObject({
        type: z.enum(["project", "person"]).describe("Whether `id` names a project or a person."),
        id: field(entityId, "The project's or person's id: must name a record that is neither hidden nor deleted (unless the account itself is)."),
      }),
      "The project or person the account belongs to, `{type: project|person, id}`. Written.",
    ),
    ...visibilityFields,
    ...searchFields,
    profile_url: z.string().optional().describe("Accepted and never written: any string (not checked as a URL)."),
    display_name: z.string().optional().describe("Accepted and never written: any string."),
    bio: z.string().optional().describe("Accepted and never written: any string."),
    metrics: z.unknown().optional().describe("Accepted and never written: any JSON value."),
    ...internalFields,
  })
  .describe("An X (Twitter) account (x_accounts.jsonl, one JSON object per line).");

export type XAccountSource = z.input<typeof xAccountSource>;
