// Building blocks shared by every family's source schema.
// Curated records are strict objects: a misspelt field is an error, not silently ignored.
import { z } from "zod";
import { asSlug, characterMessage, shown, type CharacterRule } from "./value-messages.ts";

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

/**
 * A string field with a rule of characters: the pattern (for zod and JSON Schema) and, when a value
 * breaks it, a message naming the value and its first offending character or its length
 * (value-messages.ts), then the structure's problem, then a suggestion.
 */
export function patterned(pattern: RegExp, rule: CharacterRule, help: { structure?: (value: string) => string | undefined; suggestion?: (value: string) => string | undefined } = {}) {
  return z.string().regex(pattern, { error: (issue) => characterMessage(issue.input, rule, { ...help, pattern }) });
}

const ID = /^[A-Za-z0-9][A-Za-z0-9_.:-]{0,159}$/;
export const entityId = patterned(ID, {
  expected: "an id of 1-160 characters [A-Za-z0-9_.:-]", allowed: /[A-Za-z0-9_.:-]/, first: /[A-Za-z0-9]/, min: 1, max: 160,
}, {
  // Marks dropped, each run of other characters one dash: "ageur-(wormhole)" → "ageur-wormhole".
  suggestion: (value) => value.normalize("NFKD").replace(/\p{M}/gu, "").replace(/[^A-Za-z0-9_.:-]+/g, "-").replace(/-{2,}/g, "-")
    .replace(/^[^A-Za-z0-9]+|[-_.:]+$/g, ""),
})
  .describe("An id: 1-160 characters of A-Z, a-z, 0-9, `_ . : -`, starting with a letter or digit.");

const SLUG = /^[a-z0-9](?:[a-z0-9-]{0,158}[a-z0-9])?$/;
export const slug = patterned(SLUG, {
  expected: "a slug of 1-160 characters [a-z0-9-]", allowed: /[a-z0-9-]/, first: /[a-z0-9]/, min: 1, max: 160,
}, {
  structure: (value) => (value.endsWith("-") ? `${shown(value)} may not end with "-"` : undefined),
  suggestion: asSlug,
}).describe("A slug: 1-160 characters of a-z, 0-9 and `-`, not starting or ending with `-`.");

/**
 * A value of a free-form enumeration (round_type, sentiment, cadence, ...): lower-case snake_case,
 * as the API docs promise consumers. Enumerations the API spec itself fixes keep their own
 * spelling (fund_type `family-office`, stock angle `btc-treasury`) and use z.enum instead.
 */
const SNAKE_CASE = /^[a-z][a-z0-9]*(?:_[a-z0-9]+)*$/;
/** Where a snake_case value of allowed characters goes wrong: a doubled or trailing underscore. */
function snakeCaseStructure(value: string): string | undefined {
  const doubled = value.indexOf("__");
  if (doubled >= 0) return `${shown(value)} has "__" at character ${doubled + 1}`;
  if (value.endsWith("_")) return `${shown(value)} may not end with "_"`;
  return undefined;
}

export const snakeCase = (max: number) =>
  patterned(SNAKE_CASE, {
    expected: `lower-case snake_case of 1-${max} characters (a-z, 0-9, single underscores, starting with a letter)`,
    allowed: /[a-z0-9_]/, first: /[a-z]/, min: 1, max,
  }, {
    structure: snakeCaseStructure,
    // No suggestion for a value that starts with a digit: dropping it would change what it says.
    suggestion: (value) => {
      const folded = value.normalize("NFKD").replace(/\p{M}/gu, "").toLowerCase().replace(/[^a-z0-9]+/g, "_").replace(/^_+|_+$/g, "");
      return /^[0-9]/.test(folded) ? undefined : folded;
    },
  })
    .max(max)
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

/** Why a string is not an ISO 8601 UTC date-time, for the mistakes real exports make. */
function dateTimeProblem(value: string): string {
  if (/^\d{4}-\d{2}-\d{2}$/.test(value)) return `${shown(value)} is a date without a time: write, e.g., "${value}T00:00:00Z"`;
  if (/^\d{4}-\d{2}-\d{2} \d/.test(value)) return `${shown(value)} has " " (a space) at character 11: write "T" between the date and the time`;
  if (/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(?::\d{2}(?:\.\d+)?)?$/.test(value)) return `${shown(value)} has no zone: end it with "Z" (UTC)`;
  if (/^\d{4}-\d{2}-\d{2}T[\d:.]+[+-]\d{2}:?\d{2}$/.test(value)) return `${shown(value)} has an offset: convert it to UTC and end it with "Z"`;
  if (/^\d{4}-\d{2}-\d{2}t/.test(value) || /z$/.test(value)) return `${shown(value)} has a lower-case "t" or "z": write them upper-case`;
  return `${shown(value)} is not one`;
}

/** ISO 8601 UTC date-time; written to the snapshot normalised to milliseconds. */
export const dateTime = z.iso
  .datetime({
    // Not a string at all: the type's own message (issues.ts) names what it is.
    error: (issue) => typeof issue.input !== "string" ? undefined
      : nonexistentDate(issue.input) ?? `expected an ISO 8601 UTC date-time such as 2026-03-01T12:00:00Z: ${dateTimeProblem(issue.input)}`,
  })
  .describe("An ISO 8601 UTC date-time ending in `Z`, e.g. `2026-03-01T12:00:00Z` (any fraction of a second).");

/** Why a string is not a calendar date, after `expected <what>`: a date with a time, a day that does not exist, anything else. */
export function dateMessage(input: string, expected = "a date YYYY-MM-DD"): string {
  const nonexistent = nonexistentDate(input);
  if (nonexistent !== undefined) return nonexistent;
  if (/^\d{4}-\d{2}-\d{2}T/.test(input)) return `expected ${expected}: ${shown(input)} has a time: write ${JSON.stringify(input.slice(0, 10))}`;
  return `expected ${expected}: ${shown(input)} is not one`;
}

/** A UTC calendar date, YYYY-MM-DD. */
export const date = z.iso
  .date({ error: (issue) => (typeof issue.input === "string" ? dateMessage(issue.input) : undefined) })
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

/** Why a string is not an http(s) URL: no scheme, another scheme, or one the parser refuses. */
function urlMessage(input: string): string {
  const scheme = /^([A-Za-z][A-Za-z0-9+.-]*):/.exec(input.trim());
  if (scheme === null) return `expected an http(s) URL: ${shown(input)} has no scheme: write it with "https://"`;
  if (!/^https?$/i.test(scheme[1]!)) return `expected an http(s) URL: ${shown(input)} has the scheme "${scheme[1]}:"`;
  return `expected an http(s) URL: ${shown(input)} is not one that parses (its host or port)`;
}

export const url = z
  .url({ protocol: /^https?$/, error: (issue) => (typeof issue.input === "string" ? urlMessage(issue.input) : undefined) })
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
        const position = [...value.slice(0, found.index)].length + 1;
        context.addIssue({ code: "custom", message: `expected text without ${what}: ${shown(value)} has ${codePoint(found[0])} at character ${position}` });
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
