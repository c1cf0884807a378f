// Turns zod issues into short curator-facing messages: `path: message`.
import type { z } from "zod";
import { shown, shownKind, shownValue } from "./families/value-messages.ts";

type Issue = z.core.$ZodIssue;
type PathKey = PropertyKey;

/** `funding[2].amount_usd`; `(root)` for the record itself. */
export function formatPath(path: readonly PathKey[]): string {
  let out = "";
  for (const key of path) {
    if (typeof key === "number") out += `[${key}]`;
    else if (typeof key === "string" && /^[A-Za-z_][A-Za-z0-9_]*$/.test(key)) out += out === "" ? key : `.${key}`;
    else out += `[${JSON.stringify(String(key))}]`;
  }
  return out === "" ? "(root)" : out;
}

const article = (noun: string): string => (/^[aeiou]/.test(noun) ? `an ${noun}` : `a ${noun}`);

const typeNames: Record<string, string> = {
  int: "integer",
  object: "object",
  array: "array",
  string: "string",
  number: "number",
  boolean: "boolean",
};

function sizeMessage(issue: Issue & { origin?: string }, bound: string, limit: number | bigint, inclusive: boolean, input: unknown): string {
  const n = Number(limit);
  switch (issue.origin) {
    case "string": {
      // Lengths count UTF-16 code units, as the rule does (docs/source-format.md).
      const length = typeof input === "string" ? input.length : undefined;
      if (bound === ">=" && n === 1) return "expected a non-empty string";
      const expected = bound === ">=" ? `expected at least ${n} characters` : `expected at most ${n} characters`;
      return length === undefined ? expected : `${expected}, not ${length}: ${shown(input as string)}`;
    }
    case "array": {
      const items = `${n} item${n === 1 ? "" : "s"}`;
      const expected = bound === ">=" ? `expected at least ${items}` : `expected at most ${items}`;
      return Array.isArray(input) ? `${expected}, not ${input.length}` : expected;
    }
    default: {
      const op = inclusive ? bound : bound[0];
      return `expected a number ${op} ${n}${typeof input === "number" ? `, not ${input}` : ""}`;
    }
  }
}

/** `expected one of: a, b` and the value given, with the listed value it differs from only in case. */
function oneOfMessage(values: readonly unknown[], input: unknown): string {
  const listed = `expected one of: ${values.map(String).join(", ")}`;
  if (input === undefined) return listed;
  const sameLetters = typeof input === "string" ? values.find((v) => typeof v === "string" && v.toLowerCase() === input.toLowerCase()) : undefined;
  return `${listed}; not ${shownValue(input)}${sameLetters === undefined ? "" : `: did you mean ${JSON.stringify(sameLetters)}?`}`;
}

function describe(issue: Issue, input: unknown): string {
  // A missing field fails its enumeration or union too: say what the curator must fix.
  if (input === undefined && (issue.code === "invalid_type" || issue.code === "invalid_value" || issue.code === "invalid_union")) return "required";
  switch (issue.code) {
    case "invalid_type":
      // A schema's own message says more (a chain id given as a number says how to write it).
      if (!issue.message.startsWith("Invalid input")) return issue.message;
      if (issue.expected === "int" && typeof input === "number") return `expected an integer, not ${input}`;
      return `expected ${article(typeNames[issue.expected] ?? issue.expected)}, not ${shownKind(input)}`;
    case "too_small":
      return sizeMessage(issue, ">=", issue.minimum, issue.inclusive ?? true, input);
    case "too_big":
      return sizeMessage(issue, "<=", issue.maximum, issue.inclusive ?? true, input);
    case "invalid_value":
      return issue.values.length === 1
        ? `expected ${JSON.stringify(issue.values[0])}, not ${shownValue(input)}`
        : oneOfMessage(issue.values, input);
    case "invalid_union": {
      const options = (issue as { options?: unknown[] }).options;
      if (Array.isArray(options)) return oneOfMessage(options, input);
      const branches = issue.errors.map((branch) => branch[0]).filter((b) => b !== undefined);
      if (branches.length === 0) return `invalid value ${shownValue(input)}`;
      // Each branch's expectation, then what was given, once: the last branch's reason names it.
      const expectations = branches.map((b) => describe(b, input).replace(/^expected /, "").replace(/(?:, not |: |; not ).*$/, ""));
      return `expected ${expectations.join(" or ")}, not ${shownValue(input)}`;
    }
    case "invalid_format":
    case "custom":
      // Our own messages say what is wrong; zod's defaults ("Invalid ...") only what was expected.
      return !issue.message.startsWith("Invalid") ? issue.message : `expected ${issue.code === "invalid_format" ? issue.format : "a valid value"}, not ${shownValue(input)}`;
    case "not_multiple_of":
      return `expected a multiple of ${String(issue.divisor)}, not ${shownValue(input)}`;
    default:
      return issue.message;
  }
}

function valueAt(root: unknown, path: readonly PathKey[]): unknown {
  let value = root;
  for (const key of path) {
    if (value === null || typeof value !== "object") return undefined;
    value = (value as Record<PropertyKey, unknown>)[key];
  }
  return value;
}

/** One `path: message` per problem; an unknown-keys issue yields one line per key. */
export function formatIssues(issues: readonly Issue[], input: unknown): Array<{ path: string; message: string }> {
  const out: Array<{ path: string; message: string }> = [];
  for (const issue of issues) {
    const path = formatPath(issue.path);
    if (issue.code === "unrecognized_keys") {
      for (const key of issue.keys) out.push({ path, message: `unknown field ${JSON.stringify(key)}` });
    } else {
      out.push({ path, message: describe(issue, valueAt(input, issue.path)) });
    }
  }
  return out;
}
