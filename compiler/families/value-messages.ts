// How a problem shows the value it is about (docs/source-format.md, "Errors"): escaped, cut to a
// readable length, and, for a rule of characters, the first character that breaks it and where.
// The schemas' own messages (source-fields.ts) and the generic ones (issues.ts) both use these.

/** Characters of a value a message shows; a longer value is cut, and its length said. */
export const SHOWN_CHARACTERS = 60;

/** Characters a terminal would not show as themselves: controls, format characters (bidi, zero-width), separators. */
const INVISIBLE = /[\p{C}\p{Zl}\p{Zp}]/u;
const INVISIBLE_ALL = /[\p{C}\p{Zl}\p{Zp}]/gu;

const codePoint = (char: string): string => `U+${char.codePointAt(0)!.toString(16).toUpperCase().padStart(4, "0")}`;

/** JSON's escaping, and every character a terminal would hide or reorder (bidi overrides, zero-width) as \uXXXX. */
function escaped(value: string): string {
  return JSON.stringify(value).replace(INVISIBLE_ALL, (char) =>
    [...char].map((c) => `\\u${c.codePointAt(0)!.toString(16).padStart(4, "0")}`).join(""));
}

/** The number of characters as a reader counts them (code points, not UTF-16 units). */
export const characterCount = (value: string): number => {
  let n = 0;
  for (const _ of value) n++;
  return n;
};

/** A string value as a message shows it: `"bit_financial"`, or its first characters then `…` when long. */
export function shown(value: string): string {
  if (value.length <= SHOWN_CHARACTERS) return escaped(value);
  const characters = [...value];
  if (characters.length <= SHOWN_CHARACTERS) return escaped(value);
  return `${escaped(characters.slice(0, SHOWN_CHARACTERS).join(""))}…`;
}

/** Any JSON value as a message shows it: a string quoted, a number as written, else what it is. */
export function shownValue(value: unknown): string {
  if (typeof value === "string") return shown(value);
  if (typeof value === "number" || typeof value === "boolean") return String(value);
  if (value === null) return "null";
  if (Array.isArray(value)) return `an array of ${value.length} item${value.length === 1 ? "" : "s"}`;
  if (typeof value === "object") return "an object";
  return String(value);
}

/** A value of the wrong type as a message names it: `the number 5`, `the string "5"`, `an object`. */
export function shownKind(value: unknown): string {
  if (typeof value === "string") return `the string ${shown(value)}`;
  if (typeof value === "number") return `the number ${value}`;
  if (typeof value === "boolean") return `the boolean ${value}`;
  return shownValue(value);
}

/** One character as a message names it: `"_"`, `"₮" (U+20AE)`, or `U+200B` when it would not show. */
export function shownCharacter(char: string): string {
  if (/^[!-~]$/.test(char)) return JSON.stringify(char);
  if (char === " ") return `" " (a space)`;
  if (INVISIBLE.test(char)) return codePoint(char);
  return `${JSON.stringify(char)} (${codePoint(char)})`;
}

/** A rule of characters: which may appear, which may start the value, and how many. */
export interface CharacterRule {
  /** What is expected, e.g. `an id of 1-160 characters [A-Za-z0-9_.:-]`: every message starts `expected <this>`. */
  expected: string;
  /** One allowed character. */
  allowed: RegExp;
  /** One allowed first character, when narrower than `allowed`. */
  first?: RegExp;
  min: number;
  max: number;
  /** A prefix the rule ignores (the `@` of an X handle). */
  prefix?: string;
}

/**
 * Why `value` breaks `rule`, in the curator's terms: its first character that is not allowed (and
 * where, counted in characters from 1), else its length; undefined when it breaks neither (its
 * structure is wrong: the caller says how).
 */
export function characterProblem(value: string, rule: CharacterRule): string | undefined {
  const body = rule.prefix !== undefined && value.startsWith(rule.prefix) ? value.slice(rule.prefix.length) : value;
  const offset = value.length - body.length;
  let position = offset;
  for (const char of body) {
    position++;
    if (!rule.allowed.test(char)) return `${shown(value)} has ${shownCharacter(char)} at character ${position}`;
    if (position === offset + 1 && rule.first !== undefined && !rule.first.test(char)) {
      return `${shown(value)} may not start with ${shownCharacter(char)}`;
    }
  }
  const length = characterCount(body);
  if (length === 0) return rule.prefix !== undefined && offset > 0 ? `${shown(value)} has nothing after ${JSON.stringify(rule.prefix)}` : "the value is empty";
  if (length < rule.min) return `${shown(value)} has ${length} character${length === 1 ? "" : "s"}, fewer than ${rule.min}`;
  if (length > rule.max) return `${shown(value)} has ${length} characters, more than ${rule.max}`;
  return undefined;
}

/** How a rule of characters explains itself beyond the characters and the length. */
export interface RuleHelp {
  /** Why a value of allowed characters and length still fails (its structure). */
  structure?: (value: string) => string | undefined;
  /** The value as it was probably meant, offered when it differs and keeps the rule. */
  suggestion?: (value: string) => string | undefined;
  /** The whole rule, to check a suggestion against. */
  pattern?: RegExp;
}

/**
 * `expected <rule>: <what is wrong>[; did you mean "<value>"?]`, for a string that breaks a rule
 * of characters (a value that is not a string never reaches a pattern).
 */
export function characterMessage(value: unknown, rule: CharacterRule, help: RuleHelp = {}): string {
  if (typeof value !== "string") return `expected ${rule.expected}`;
  const problem = characterProblem(value, rule) ?? help.structure?.(value) ?? `${shown(value)} does not follow it`;
  const suggestion = help.suggestion?.(value);
  const offered = suggestion !== undefined && suggestion !== value && suggestion !== "" && (help.pattern?.test(suggestion) ?? true);
  return `expected ${rule.expected}: ${problem}${offered ? `; did you mean ${shown(suggestion)}?` : ""}`;
}

/** Letters without their marks, lower-cased, every run of anything else one dash: `"Wrapped stETH 2.0"` → `"wrapped-steth-2-0"`. */
export function asSlug(value: string): string {
  return value.normalize("NFKD").replace(/\p{M}/gu, "").toLowerCase().replace(/[^a-z0-9]+/g, "-").replace(/^-+|-+$/g, "");
}
