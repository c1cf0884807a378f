// Stocks: listed (or about to list) companies with a crypto angle, ranked by IPO date.
import { z } from "zod";
import { date, entityId, field, internalFields, patterned, searchFields, slug, text, visibilityFields } from "../source-fields.ts";

export const stockRegions = ["us", "hk", "kr", "jp", "tw", "uk", "au", "br"] as const;
export const cryptoAngles = [
  "btc-treasury", "eth-treasury", "spot-etf", "mining", "exchange",
  "custody", "tokenizer", "stablecoin", "infrastructure", "diversified",
] as const;

export const stockSource = z
  .strictObject({
    id: field(entityId, "The stock's id: news entities and trending entries name the stock by it. Unique in stocks.jsonl. Written."),
    slug: field(slug, "The stock's slug, in `/v1/stocks/{slug}/news`. Unique in stocks.jsonl. Written, and searched."),
    name: field(text(200), "The company's name. Written, and searched."),
    ticker: patterned(/^[A-Z0-9.-]{1,16}$/, { expected: "a ticker of 1-16 characters [A-Z0-9.-]", allowed: /[A-Z0-9.-]/, min: 1, max: 16 }, {
      suggestion: (value) => value.toUpperCase(),
    })
      .describe("The ticker on its exchange, e.g. `MSTR` or `0700.HK`: 1-16 characters of upper-case A-Z, 0-9, `.` and `-`. Written, and searched."),
    exchange: field(text(32), "The exchange the stock lists on, e.g. `NASDAQ`. Written."),
    region: z.enum(stockRegions).describe("The market region of the listing. Written."),
    crypto_angle: z.enum(cryptoAngles).describe("How the company is exposed to crypto. Written."),
    ipo_date: field(date, "The date of the IPO (expected, for a pre-IPO company): ranks the stocks, most recent first. Written."),
    is_pre_ipo: z.boolean().describe("Whether the company has yet to list. Written."),
    ...visibilityFields,
    ...searchFields,
    score: z.number().optional().describe("Accepted and never written: a number."),
    native_name: z.string().optional().describe("Accepted and never written: any string."),
    currency: z.string().optional().describe("Accepted and never written: any string."),
    sector: z.string().optional().describe("Accepted and never written: any string."),
    market: z.unknown().optional().describe("Accepted and never written: any JSON value."),
    treasury: z.unknown().optional().describe("Accepted and never written: any JSON value."),
    description: z.string().optional().describe("Accepted and never written: any string."),
    website: z.string().optional().describe("Accepted and never written: any string (not checked as a URL)."),
    ...internalFields,
  })
  .describe("A listed or pre-IPO company with a crypto angle (stocks.jsonl, one JSON object per line).");

export type StockSource = z.input<typeof stockSource>;
