// X accounts: the handle is read to derive an opaque id and a search hash, and never written.
import { z } from "zod";
import { entityId, internalFields, visibilityFields } from "./_common.ts";

export const xHandle = z.string().regex(/^@?[A-Za-z0-9_]{1,15}$/, "expected an X handle of 1-15 characters [A-Za-z0-9_]");

export const xAccountSource = z.strictObject({
  handle: xHandle,
  /** Must name a visible project or person. */
  linked_entity: z.strictObject({ type: z.enum(["project", "person"]), id: entityId }).nullable().default(null),
  ...visibilityFields,
  profile_url: z.string().optional(),
  display_name: z.string().optional(),
  bio: z.string().optional(),
  metrics: z.unknown().optional(),
  ...internalFields,
});

export type XAccountSource = z.input<typeof xAccountSource>;
