// Trending signals: one record per entity per UTC day (or "live" for the current window).
import { z } from "zod";
import { date, dateTime, entityId, internalFields } from "./_common.ts";
import { xHandle } from "./x-accounts.ts";

export const trendingEntityRef = z.discriminatedUnion("type", [
  z.strictObject({ type: z.literal("project"), id: entityId }),
  z.strictObject({ type: z.literal("token"), id: entityId }),
  z.strictObject({ type: z.literal("person"), id: entityId }),
  /** X accounts are named by handle: curators never see the opaque id. */
  z.strictObject({ type: z.literal("x_account"), handle: xHandle }),
]);

export const trendingSignalSource = z.strictObject({
  entity: trendingEntityRef,
  /** The UTC day the signal belongs to, or "live" for the current window. */
  day: z.union([z.literal("live"), date]),
  observed_at: dateTime,
  score: z.number(),
  heat: z.number().optional(),
  signal_count: z.number().optional(),
  summary: z.string().optional(),
  clicks: z.number().optional(),
  raw_signals: z.unknown().optional(),
  ...internalFields,
});

export type TrendingSignalSource = z.input<typeof trendingSignalSource>;
