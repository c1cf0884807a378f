// Building blocks shared by every family's source schema.
// Curated records are strict objects: a misspelt field is an error, not silently ignored.
import { z } from "zod";

export const entityId = z
  .string()
  .regex(/^[A-Za-z0-9][A-Za-z0-9_.:-]{0,159}$/, "expected an id of 1-160 characters [A-Za-z0-9_.:-]");

const SLUG = "expected a slug of 1-160 characters [a-z0-9-]";

/** What is wrong with a slug, in the curator's terms: a leading or trailing dash, or the first character not allowed. */
function slugMessage(input: unknown): string {
  if (typeof input !== "string" || input === "") return SLUG;
  const quoted = JSON.stringify(input);
  if (input.startsWith("-")) return `expected a slug that starts with a letter or digit, not a dash: ${quoted}`;
  if (input.endsWith("-")) return `expected a slug that ends with a letter or digit, not a dash: ${quoted}`;
  const bad = /[^a-z0-9-]/.exec(input);
  return bad === null ? SLUG : `${SLUG}: ${quoted} has ${JSON.stringify(bad[0])} at character ${bad.index + 1}`;
}

export const slug = z
  .string()
  .regex(/^[a-z0-9](?:[a-z0-9-]{0,158}[a-z0-9])?$/, { error: (issue) => slugMessage(issue.input) });

/**
 * A value of a free-form enumeration (round_type, sentiment, cadence, ...): lower-case snake_case,
 * as the API docs promise consumers. Enumerations the API spec itself fixes keep their own
 * spelling (fund_type `family-office`, stock angle `btc-treasury`) and use z.enum instead.
 */
export const snakeCase = (max: number) =>
  z
    .string()
    .max(max)
    .regex(/^[a-z][a-z0-9]*(?:_[a-z0-9]+)*$/, {
      error: (issue) => {
        const suggestion = String(issue.input).toLowerCase().replace(/[^a-z0-9]+/g, "_").replace(/^[_0-9]+|_+$/g, "");
        const spelling = "lower-case snake_case (a-z, 0-9, single underscores)";
        return suggestion === "" ? `expected ${spelling}` : `expected ${spelling}: "${suggestion}", not ${JSON.stringify(issue.input)}`;
      },
    });

const MONTHS = ["January", "February", "March", "April", "May", "June", "July", "August", "September", "October", "November", "December"];

/**
 * Why a well-formed `YYYY-MM-DD` (at the start of `input`) is not a day of the calendar, e.g.
 * `no such date: 2026-02-30 (February 2026 has 28 days)`; undefined when it is one, or not well-formed.
 */
export function nonexistentDate(input: unknown): string | undefined {
  const match = typeof input === "string" ? /^(\d{4})-(\d{2})-(\d{2})/.exec(input) : null;
  if (match === null) return undefined;
  const [ymd, year, month, day] = [match[0], Number(match[1]), Number(match[2]), Number(match[3])];
  if (month < 1 || month > 12) return `no such date: ${ymd} (there is no month ${match[2]})`;
  const days = new Date(Date.UTC(year, month, 0)).getUTCDate();
  if (day < 1 || day > days) return `no such date: ${ymd} (${MONTHS[month - 1]} ${year} has ${days} days)`;
  return undefined;
}

/** ISO 8601 UTC date-time; written to the snapshot normalised to milliseconds. */
export const dateTime = z.iso.datetime({
  error: (issue) => {
    return nonexistentDate(issue.input) ?? "expected an ISO 8601 UTC date-time";
  },
});

/** A UTC calendar date, YYYY-MM-DD. */
export const date = z.iso.date({
  error: (issue) => {
    return nonexistentDate(issue.input) ?? "expected a date YYYY-MM-DD";
  },
});

export const url = z.url({ protocol: /^https?$/, error: "expected an http(s) URL" });

/**
 * Characters curated text may not hold: C0 controls (tab and line feed only in prose), and the
 * bidirectional overrides and isolates, which reorder what a reader sees around them.
 */
const CONTROL = /[\u0000-\u001F]/;
const PROSE_CONTROL = /[\u0000-\u0008\u000B-\u001F]/;
const BIDI = /[\u202A-\u202E\u2066-\u2069]/;

const codePoint = (char: string): string => `U+${char.codePointAt(0)!.toString(16).toUpperCase().padStart(4, "0")}`;

function refuseHiddenCharacters(controls: RegExp) {
  return (value: string, context: z.RefinementCtx): void => {
    for (const [pattern, what] of [[controls, "control characters"], [BIDI, "bidirectional override or isolate characters"]] as const) {
      const found = pattern.exec(value);
      if (found !== null) {
        context.addIssue({ code: "custom", message: `expected text without ${what}: ${codePoint(found[0])} at character ${found.index + 1}` });
      }
    }
  };
}

/** A curated name or label: no control characters at all, no bidi overrides. */
export const text = (max: number) => z.string().min(1).max(max).superRefine(refuseHiddenCharacters(CONTROL));

/** Curated prose (a summary): tab and line feed allowed, no other control character, no bidi overrides. */
export const prose = (max: number) => z.string().min(1).max(max).superRefine(refuseHiddenCharacters(PROSE_CONTROL));

export const nonNegative = z.number().min(0);

/**
 * Fields a real curation pipeline carries. The compiler accepts them, may use the review and
 * visibility flags to decide eligibility, and never writes any of them to the snapshot.
 */
export const internalFields = {
  sources: z.array(z.object({ url: z.string(), title: z.string().optional(), retrieved_at: z.string().optional() })).optional(),
  provider_ids: z.record(z.string(), z.string()).optional(),
  evidence: z.array(z.unknown()).optional(),
  raw: z.unknown().optional(),
  media: z.array(z.unknown()).optional(),
  curator_notes: z.string().optional(),
  ingested_at: z.string().optional(),
};

/** Visibility flags of a top-level record: hidden or deleted records never reach the snapshot. */
export const visibilityFields = {
  hidden: z.boolean().default(false),
  deleted: z.boolean().default(false),
};

export const reviewState = z.enum(["unreviewed", "reviewed", "rejected"]);
