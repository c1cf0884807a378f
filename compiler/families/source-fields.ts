// Building blocks shared by every family's source schema.
// Curated records are strict objects: a misspelt field is an error, not silently ignored.
import { z } from "zod";

// Every field carries a description (zod metadata, never read while parsing): `cei schema` and
// the field tables of docs/source-format.md are generated from them. Building blocks describe
// their format; each field adds what it means, and its description replaces the block's.

/** What a field means, then the format its building block describes (which the field's own description replaces). */
const withFormat = (schema: z.ZodType, meaning: string): string =>
  [meaning, z.globalRegistry.get(schema)?.description].filter((part) => part !== undefined).join(" ");

/** Describes a field: what it means, then its format. */
export const field = <T extends z.ZodType>(schema: T, meaning: string): T => schema.describe(withFormat(schema, meaning));

/** A field that may be null: omitting it means null. */
export const nullableField = <T extends z.ZodType>(schema: T, meaning: string) =>
  schema.nullable().default(null).describe(`${withFormat(schema, meaning)} Or \`null\` (also when omitted).`);

export const entityId = z
  .string()
  .regex(/^[A-Za-z0-9][A-Za-z0-9_.:-]{0,159}$/, "expected an id of 1-160 characters [A-Za-z0-9_.:-]")
  .describe("An id: 1-160 characters of A-Z, a-z, 0-9, `_ . : -`, starting with a letter or digit.");

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
  .regex(/^[a-z0-9](?:[a-z0-9-]{0,158}[a-z0-9])?$/, { error: (issue) => slugMessage(issue.input) })
  .describe("A slug: 1-160 characters of a-z, 0-9 and `-`, not starting or ending with `-`.");

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
    })
    .describe(`A lower-case snake_case value (a-z, 0-9, single underscores), at most ${max} characters.`);

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
export const dateTime = z.iso
  .datetime({ error: (issue) => nonexistentDate(issue.input) ?? "expected an ISO 8601 UTC date-time" })
  .describe("An ISO 8601 UTC date-time ending in `Z`, e.g. `2026-03-01T12:00:00Z` (any fraction of a second).");

/** A UTC calendar date, YYYY-MM-DD. */
export const date = z.iso
  .date({ error: (issue) => nonexistentDate(issue.input) ?? "expected a date YYYY-MM-DD" })
  .describe("A calendar date `YYYY-MM-DD` that exists (no `2026-02-30`).");

/**
 * The compiler parses a URL (WHATWG) and refuses any scheme but http and https. JSON Schema's
 * `format: uri` alone would pass `ftp:` and `javascript:`, so the schema also carries this pattern:
 * the scheme (any case), then a host the parser accepts: an IPv6 literal, a dotted-quad IPv4
 * address, or a name whose last label is not a number (the parser reads such a host as IPv4), and
 * a port of at most 65535. It refuses a few hosts the parser accepts (`127.1`, a trailing dot).
 */
const IPV4_PART = "(?:25[0-5]|2[0-4][0-9]|1[0-9][0-9]|[1-9]?[0-9])";
const HOST_CHAR = String.raw`[^/?#:@\[\]\s.%]`;
const HTTP_URL_PATTERN = [
  "^[Hh][Tt][Tt][Pp][Ss]?://",
  String.raw`(?:[^/?#@\s]*@)?`,
  String.raw`(?:\[[0-9A-Fa-f:.]+\]|(?:${IPV4_PART}\.){3}${IPV4_PART}|`,
  String.raw`(?:${HOST_CHAR}+\.)*(?!0[Xx][0-9A-Fa-f]*(?:[/?#:]|$))(?=${HOST_CHAR}*[^/?#:@\[\]\s.0-9])${HOST_CHAR}+)`,
  "(?::0*(?:[0-5]?[0-9]{1,4}|6[0-4][0-9]{3}|65[0-4][0-9]{2}|655[0-2][0-9]|6553[0-5])?)?",
  "(?:[/?#]|$)",
].join("");

export const url = z
  .url({ protocol: /^https?$/, error: "expected an http(s) URL" })
  .meta({ description: "An absolute http:// or https:// URL.", pattern: HTTP_URL_PATTERN });

/**
 * Characters curated text may not hold: C0 controls (tab and line feed only in prose), and the
 * bidirectional overrides and isolates, which reorder what a reader sees around them.
 */
const CONTROL_RANGE = String.raw`\u0000-\u001F`;
const PROSE_CONTROL_RANGE = String.raw`\u0000-\u0008\u000B-\u001F`;
const BIDI_RANGE = String.raw`\u202A-\u202E\u2066-\u2069`;
const CONTROL = new RegExp(`[${CONTROL_RANGE}]`);
const PROSE_CONTROL = new RegExp(`[${PROSE_CONTROL_RANGE}]`);
const BIDI = new RegExp(`[${BIDI_RANGE}]`);
/** The same rule for JSON Schema, which cannot run the refinement: no such character anywhere. */
const withoutHidden = (controls: string): string => `^[^${controls}${BIDI_RANGE}]*$`;

const codePoint = (char: string): string => `U+${char.codePointAt(0)!.toString(16).toUpperCase().padStart(4, "0")}`;

function refuseHiddenCharacters(controls: RegExp, controlRange: string) {
  // One test per string on the hot path (every curated text of every record); the two patterns
  // that name what was found run only on the rare string that holds something.
  const anyHidden = new RegExp(`[${controlRange}${BIDI_RANGE}]`);
  const patterns = [[controls, "control characters"], [BIDI, "bidirectional override or isolate characters"]] as const;
  return (value: string, context: z.RefinementCtx): void => {
    if (!anyHidden.test(value)) return;
    for (const [pattern, what] of patterns) {
      const found = pattern.exec(value);
      if (found !== null) {
        context.addIssue({ code: "custom", message: `expected text without ${what}: ${codePoint(found[0])} at character ${found.index + 1}` });
      }
    }
  };
}

/** A curated name or label: no control characters at all, no bidi overrides. */
export const text = (max: number) =>
  z
    .string()
    .min(1)
    .max(max)
    .superRefine(refuseHiddenCharacters(CONTROL, CONTROL_RANGE))
    .meta({
      description: `Text of 1-${max} characters, without control characters (tab and line breaks included) or bidirectional override/isolate characters.`,
      pattern: withoutHidden(CONTROL_RANGE),
    });

/** Curated prose (a summary): tab and line feed allowed, no other control character, no bidi overrides. */
export const prose = (max: number) =>
  z
    .string()
    .min(1)
    .max(max)
    .superRefine(refuseHiddenCharacters(PROSE_CONTROL, PROSE_CONTROL_RANGE))
    .meta({
      description: `Prose of 1-${max} characters: tab and line feed allowed, no other control character, no bidirectional override/isolate characters.`,
      pattern: withoutHidden(PROSE_CONTROL_RANGE),
    });

export const nonNegative = z.number().min(0).describe("A number >= 0.");

/**
 * Fields a real curation pipeline carries. The compiler accepts them, may use the review and
 * visibility flags to decide eligibility, and never writes any of them to the snapshot.
 */
export const internalFields = {
  sources: z
    .array(
      z.object({
        url: z.string().describe("Where the curator found the information: any text, not checked as a URL."),
        title: z.string().optional().describe("The source's title."),
        retrieved_at: z.string().optional().describe("When the source was read: any text."),
      }),
    )
    .optional()
    .describe("Internal, never written: an array of the sources behind the record, each `{url, title?, retrieved_at?}`."),
  provider_ids: z
    .record(z.string(), z.string())
    .optional()
    .describe("Internal, never written: an object mapping a data provider's name to its id for this record (string values)."),
  evidence: z.array(z.unknown()).optional().describe("Internal, never written: an array of any values."),
  raw: z.unknown().optional().describe("Internal, never written: any JSON value, e.g. a provider's original payload."),
  media: z.array(z.unknown()).optional().describe("Internal, never written: an array of any values (logos, images); not an object or a string."),
  curator_notes: z.string().optional().describe("Internal, never written: a curator's notes, a string."),
  ingested_at: z.string().optional().describe("Internal, never written: when the record was ingested, any string."),
};

/** Visibility flags of a top-level record: hidden or deleted records never reach the snapshot. */
export const visibilityFields = {
  hidden: z.boolean().default(false).describe("`true` keeps the record out of the snapshot (and out of every reference to it). Default `false`."),
  deleted: z.boolean().default(false).describe("`true` marks the record deleted: it never reaches the snapshot. Default `false`."),
};

export const reviewState = z.enum(["unreviewed", "reviewed", "rejected"]);

/**
 * What a curator may say about how search ranks a record (decision 29): its curated prominence,
 * one of the signals whose highest score orders the matches of one class.
 */
export const searchFields = {
  prominence: nullableField(
    z.number().int().min(1).max(1000).describe("An integer from 1 to 1000."),
    "How prominent the record is, for search: of matches of the same class, the more prominent come first (higher first). Compiled with the record's other signals (market rank, TVL, trending appearances): the highest counts. Not written.",
  ),
};
