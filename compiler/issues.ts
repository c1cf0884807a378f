// Turns zod issues into short curator-facing messages: `path: message`.
import type { z } from "zod";

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

function sizeMessage(issue: Issue & { origin?: string }, bound: string, limit: number | bigint, inclusive: boolean): string {
  const n = Number(limit);
  switch (issue.origin) {
    case "string":
      return bound === ">=" ? (n === 1 ? "expected a non-empty string" : `expected at least ${n} characters`) : `expected at most ${n} characters`;
    case "array":
      return bound === ">=" ? `expected at least ${n} items` : `expected at most ${n} items`;
    default: {
      const op = inclusive ? bound : bound[0];
      return `expected a number ${op} ${n}`;
    }
  }
}

function describe(issue: Issue, input: unknown): string {
  // A missing field fails its enumeration or union too: say what the curator must fix.
  if (input === undefined && (issue.code === "invalid_type" || issue.code === "invalid_value" || issue.code === "invalid_union")) return "required";
  switch (issue.code) {
    case "invalid_type":
      // A schema's own message says more (a chain id given as a number says how to write it).
      if (!issue.message.startsWith("Invalid input")) return issue.message;
      return `expected ${article(typeNames[issue.expected] ?? issue.expected)}`;
    case "too_small":
      return sizeMessage(issue, ">=", issue.minimum, issue.inclusive ?? true);
    case "too_big":
      return sizeMessage(issue, "<=", issue.maximum, issue.inclusive ?? true);
    case "invalid_value":
      return issue.values.length === 1
        ? `expected ${JSON.stringify(issue.values[0])}`
        : `expected one of: ${issue.values.map(String).join(", ")}`;
    case "invalid_union": {
      const options = (issue as { options?: unknown[] }).options;
      if (Array.isArray(options)) return `expected one of: ${options.map(String).join(", ")}`;
      const branches = issue.errors.map((branch) => branch[0]).filter((b) => b !== undefined);
      if (branches.length === 0) return "invalid value";
      return branches.map((b, i) => (i === 0 ? describe(b, input) : describe(b, input).replace(/^expected /, ""))).join(" or ");
    }
    case "invalid_format":
    case "custom":
      // Our own messages say what is wrong; zod's defaults ("Invalid ...") only what was expected.
      return !issue.message.startsWith("Invalid") ? issue.message : `expected ${issue.code === "invalid_format" ? issue.format : "a valid value"}`;
    case "not_multiple_of":
      return `expected a multiple of ${String(issue.divisor)}`;
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
