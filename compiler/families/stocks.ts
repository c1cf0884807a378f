// Stocks: listed (or about to list) companies with a crypto angle, ranked by IPO date.
import { z } from "zod";
import { date, entityId, internalFields, slug, text, visibilityFields } from "./_common.ts";

export const stockRegions = ["us", "hk", "kr", "jp", "tw", "uk", "au", "br"] as const;
export const cryptoAngles = [
  "btc-treasury", "eth-treasury", "spot-etf", "mining", "exchange",
  "custody", "tokenizer", "stablecoin", "infrastructure", "diversified",
] as const;

export const stockSource = z.strictObject({
  id: entityId,
  slug,
  name: text(200),
  ticker: z.string().regex(/^[A-Z0-9.-]{1,16}$/, "expected a ticker of 1-16 characters [A-Z0-9.-]"),
  exchange: text(32),
  region: z.enum(stockRegions),
  crypto_angle: z.enum(cryptoAngles),
  ipo_date: date,
  is_pre_ipo: z.boolean(),
  ...visibilityFields,
  score: z.number().optional(),
  native_name: z.string().optional(),
  currency: z.string().optional(),
  sector: z.string().optional(),
  market: z.unknown().optional(),
  treasury: z.unknown().optional(),
  description: z.string().optional(),
  website: z.string().optional(),
  ...internalFields,
});

export type StockSource = z.input<typeof stockSource>;
