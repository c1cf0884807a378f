// What JSON.parse does not say about a source line, in the curator's terms: a byte order mark,
// a trailing comma, and keys a record repeats (JSON.parse silently keeps the last one). Only
// `mayRepeatKeys` runs on every record; the scans run only on lines that failed or may repeat a key.

export const BOM = "\uFEFF";

/**
 * `invalid JSON ...` for a line JSON.parse refused, in our own words and the same on every
 * runtime (engines word and place their messages differently: V8 12 appends a line and column
 * that V8 11 does not): a trailing comma is named as one, anything else by `jsonSyntaxError`.
 */
export function invalidJsonMessage(text: string): string {
  const comma = trailingComma(text);
  if (comma !== undefined) return `invalid JSON: trailing comma at character ${comma + 1}: remove the comma before "${text[nextNonSpace(text, comma + 1)]}"`;
  const found = jsonSyntaxError(text);
  // JSON.parse refused what the scanner accepts only when the engine itself gave up (a stack
  // overflow on extreme nesting); say so rather than nothing.
  if (found === undefined) return "invalid JSON: the record could not be read (nested too deeply?)";
  return `invalid JSON at character ${found.at + 1}: ${found.message}`;
}

/**
 * The deepest nesting of objects and arrays a record may have (docs/source-format.md). The
 * deepest record of any family is 5 levels (a project's funding round's investor); the bound is
 * checked on the text, before anything that recurses (the repeated-key walk, zod) sees it.
 */
export const MAX_NESTING = 64;

/**
 * Whether `text` opens more than `max` objects or arrays without closing them at some point
 * (brackets in strings not counted). Runs on every line, so it first counts the brackets at all,
 * which only a line that might be that deep has more than `max` of.
 */
export function nestedDeeperThan(text: string, max = MAX_NESTING): boolean {
  let brackets = 0;
  for (let at = text.indexOf("{"); at !== -1 && brackets <= max; at = text.indexOf("{", at + 1)) brackets++;
  for (let at = text.indexOf("["); at !== -1 && brackets <= max; at = text.indexOf("[", at + 1)) brackets++;
  if (brackets <= max) return false;
  let depth = 0;
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (inString) {
      if (c === 0x5c) i++;
      else if (c === 0x22) inString = false;
    } else if (c === 0x22) {
      inString = true;
    } else if (c === 0x7b || c === 0x5b) {
      if (++depth > max) return true;
    } else if (c === 0x7d || c === 0x5d) {
      depth--;
    }
  }
  return false;
}

/** How a character is shown in a message: itself when printable, else its code point. */
function shown(c: string | undefined): string {
  if (c === undefined) return "the end of the line";
  const code = c.codePointAt(0)!;
  if (code < 0x20 || code === 0x7f) return `U+${code.toString(16).toUpperCase().padStart(4, "0")}`;
  return JSON.stringify(String.fromCodePoint(code));
}

const NUMBER = /-?(?:0|[1-9][0-9]*)(?:\.[0-9]+)?(?:[eE][+-]?[0-9]+)?/y;
const ESCAPES = new Set(['"', "\\", "/", "b", "f", "n", "r", "t"]);

/**
 * The first syntax error in `text` by RFC 8259, as a 0-based character index and what was
 * expected there; undefined when the text is valid JSON. Iterative (an explicit stack), so any
 * depth is scanned without recursion. Runs only on lines that already failed to parse.
 */
export function jsonSyntaxError(text: string): { at: number; message: string } | undefined {
  let i = 0;
  const stack: Array<"{" | "["> = [];
  const fail = (message: string) => ({ at: i, message });
  const skip = () => {
    i = nextNonSpace(text, i);
  };
  /** Reads a string at `i` (a quote); an error, or undefined once past its closing quote. */
  const string = (): { at: number; message: string } | undefined => {
    const start = i;
    i++;
    for (;;) {
      const c = text[i];
      if (c === undefined) {
        i = start;
        return fail("a string that is never closed: add the closing \"");
      }
      if (c === '"') {
        i++;
        return undefined;
      }
      if (c === "\\") {
        const e = text[i + 1];
        if (e === "u") {
          if (!/^[0-9a-fA-F]{4}$/.test(text.slice(i + 2, i + 6))) return fail("\\u must be followed by 4 hexadecimal digits");
          i += 6;
        } else if (e !== undefined && ESCAPES.has(e)) {
          i += 2;
        } else {
          return fail(`invalid escape \\${e ?? ""} in a string (valid: \\" \\\\ \\/ \\b \\f \\n \\r \\t \\uXXXX)`);
        }
        continue;
      }
      if (c.charCodeAt(0) < 0x20) return fail(`the control character ${shown(c)} inside a string: write it as an escape`);
      i++;
    }
  };
  for (;;) {
    // A value is expected here.
    skip();
    const c = text[i];
    if (c === "{" || c === "[") {
      stack.push(c);
      i++;
      skip();
      const close = c === "{" ? "}" : "]";
      if (text[i] === close) {
        stack.pop();
        i++;
      } else if (c === "{") {
        if (text[i] !== '"') return fail(`expected a property name in double quotes or "}", found ${shown(text[i])}`);
        const bad = string();
        if (bad) return bad;
        skip();
        if (text[i] !== ":") return fail(`expected ":" after the property name, found ${shown(text[i])}`);
        i++;
        continue;
      } else {
        continue;
      }
    } else if (c === '"') {
      const bad = string();
      if (bad) return bad;
    } else if (c === "-" || (c !== undefined && c >= "0" && c <= "9")) {
      NUMBER.lastIndex = i;
      const m = NUMBER.exec(text);
      if (m === null) return fail(`invalid number: expected a digit after "-", found ${shown(text[i + 1])}`);
      i += m[0].length;
      if ((m[0] === "0" || m[0] === "-0") && text[i] !== undefined && text[i]! >= "0" && text[i]! <= "9") return fail("a number may not have a leading zero");
    } else if (text.startsWith("true", i) || text.startsWith("null", i)) {
      i += 4;
    } else if (text.startsWith("false", i)) {
      i += 5;
    } else if (c === undefined) {
      return fail(stack.length === 0 ? "the line holds no value" : "the line ends where a value is expected");
    } else {
      return fail(`expected a value (an object, array, string, number, true, false or null), found ${shown(c)}`);
    }
    // After a value: a separator, a closing bracket, or (at the top) the end.
    for (;;) {
      skip();
      const open = stack[stack.length - 1];
      if (open === undefined) return i < text.length ? fail(`unexpected ${shown(text[i])} after the record: a line holds one JSON value`) : undefined;
      const close = open === "{" ? "}" : "]";
      const after = open === "{" ? "a property value" : "an array element";
      if (text[i] === close) {
        stack.pop();
        i++;
        continue;
      }
      if (text[i] !== ",") {
        const missing = text[i] === undefined ? ` (${stack.length} bracket${stack.length === 1 ? "" : "s"} left open)` : "";
        return fail(`expected "," or "${close}" after ${after}, found ${shown(text[i])}${missing}`);
      }
      i++;
      if (open === "{") {
        skip();
        if (text[i] !== '"') return fail(`expected a property name in double quotes, found ${shown(text[i])}`);
        const bad = string();
        if (bad) return bad;
        skip();
        if (text[i] !== ":") return fail(`expected ":" after the property name, found ${shown(text[i])}`);
        i++;
      }
      break;
    }
  }
}

const isSpace = (c: string | undefined): boolean => c === " " || c === "\t" || c === "\n" || c === "\r";
const nextNonSpace = (text: string, from: number): number => {
  let i = from;
  while (isSpace(text[i])) i++;
  return i;
};

/**
 * The index of the first comma (outside strings) followed only by white space and `}` or `]`,
 * when removing every such comma makes the line valid JSON; otherwise the comma is not the
 * (only) mistake, and undefined.
 */
function trailingComma(text: string): number | undefined {
  const commas: number[] = [];
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const c = text[i];
    if (inString) {
      if (c === "\\") i++;
      else if (c === '"') inString = false;
    } else if (c === '"') {
      inString = true;
    } else if (c === ",") {
      const next = text[nextNonSpace(text, i + 1)];
      if (next === "}" || next === "]") commas.push(i);
    }
  }
  if (commas.length === 0) return undefined;
  const without = commas.reduceRight((t, at) => t.slice(0, at) + t.slice(at + 1), text);
  try {
    JSON.parse(without);
    return commas[0];
  } catch {
    return undefined;
  }
}

/**
 * Whether a record parsed from `text` may have lost a repeated key: cheap and never wrong when it
 * says no. Every key occurrence in the text is followed by a colon outside strings; a repeated key
 * leaves the parsed value with fewer keys than that, or fewer colons in its strings than the text
 * holds (the repeated key's value, or its own colons). So: colons in the text, plus colons written
 * as `\u003a`, minus colons in the parsed keys and strings, against the parsed keys.
 */
export function mayRepeatKeys(text: string, parsed: unknown): boolean {
  // First a cheaper bound (~2 µs instead of ~3 for a 1.3 KB token line): every key occurrence ends
  // in a quote followed by a colon (white space between allowed), so those colons are at least as
  // many as the occurrences, which are at least the parsed keys; equal, nothing repeats.
  if (keyColons(text) <= countKeys(parsed)) return false;
  let colons = countColons(text);
  if (text.includes("\\u003")) colons += (text.match(/\\u003[aA]/g) ?? []).length;
  parsedKeys = 0;
  parsedColons = 0;
  countParsed(parsed);
  return colons - parsedColons > parsedKeys;
}

// The walk's counters: module state rather than an object per call, on the hot path.
let parsedKeys = 0;
let parsedColons = 0;

function countColons(s: string): number {
  let n = 0;
  for (let at = s.indexOf(":"); at !== -1; at = s.indexOf(":", at + 1)) n++;
  return n;
}

/** Colons whose previous character other than white space is a quote. */
function keyColons(text: string): number {
  let n = 0;
  for (let at = text.indexOf(":"); at !== -1; at = text.indexOf(":", at + 1)) {
    let before = at - 1;
    let c = text.charCodeAt(before);
    while (c === 0x20 || c === 0x09 || c === 0x0a || c === 0x0d) c = text.charCodeAt(--before);
    if (c === 0x22) n++;
  }
  return n;
}

/** The keys of every object in a parsed value. */
function countKeys(value: unknown): number {
  if (typeof value !== "object" || value === null) return 0;
  let n = 0;
  if (Array.isArray(value)) {
    for (let i = 0; i < value.length; i++) n += countKeys(value[i]);
    return n;
  }
  for (const key in value) n += 1 + countKeys((value as Record<string, unknown>)[key]);
  return n;
}

function countParsed(value: unknown): void {
  if (typeof value === "string") {
    if (value.length > 0) parsedColons += countColons(value);
  } else if (typeof value !== "object" || value === null) {
    return;
  } else if (Array.isArray(value)) {
    for (let i = 0; i < value.length; i++) countParsed(value[i]);
  } else {
    const keys = Object.keys(value);
    parsedKeys += keys.length;
    for (let i = 0; i < keys.length; i++) {
      const key = keys[i]!;
      if (key.includes(":")) parsedColons += countColons(key);
      countParsed((value as Record<string, unknown>)[key]);
    }
  }
}

/**
 * The first key repeated within one object of the (valid JSON) `text`, as a path and the key,
 * e.g. `{ path: "funding[0]", key: "amount_usd" }`; undefined when no key repeats.
 */
export function repeatedKey(text: string): { path: Array<string | number>; key: string } | undefined {
  let i = 0;
  const path: Array<string | number> = [];
  const readString = (): string => {
    const start = i;
    i++;
    while (text[i] !== '"') i += text[i] === "\\" ? 2 : 1;
    i++;
    return JSON.parse(text.slice(start, i)) as string;
  };
  const skipSpace = () => {
    i = nextNonSpace(text, i);
  };
  const value = (): { path: Array<string | number>; key: string } | undefined => {
    skipSpace();
    const c = text[i];
    if (c === "{") {
      i++;
      const seen = new Set<string>();
      skipSpace();
      if (text[i] === "}") return void i++;
      for (;;) {
        skipSpace();
        const key = readString();
        if (seen.has(key)) return { path: [...path], key };
        seen.add(key);
        skipSpace();
        i++; // the colon
        path.push(key);
        const found = value();
        path.pop();
        if (found !== undefined) return found;
        skipSpace();
        if (text[i++] === "}") return undefined;
      }
    }
    if (c === "[") {
      i++;
      skipSpace();
      if (text[i] === "]") return void i++;
      for (let index = 0; ; index++) {
        path.push(index);
        const found = value();
        path.pop();
        if (found !== undefined) return found;
        skipSpace();
        if (text[i++] === "]") return undefined;
      }
    }
    if (c === '"') {
      readString();
      return undefined;
    }
    while (i < text.length && !",}] \t\n\r".includes(text[i]!)) i++;
    return undefined;
  };
  return value();
}
