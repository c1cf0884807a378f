// Turning the raw request into what an operation's zod schema validates, and zod's issues into
// `error.details` items whose `path` names the parameter or body field (product decisions 2 and 7).
import type { z } from "zod";
import type { ErrorDetail } from "./errors.ts";

/** What an operation's request schema sees: decoded path parameters, query and (POST) body. */
export interface RawRequest {
  params: Record<string, string>;
  query: Record<string, string>;
  body?: unknown;
}

const EMPTY: Record<string, string> = Object.freeze(Object.create(null) as Record<string, string>);

/** At most this many query parameters are read (decision 21); more is one problem, not one per name. */
export const MAX_QUERY_PARAMETERS = 20;
/** At most this many `error.details` items (decision 21); the last says how many more were found. */
export const MAX_DETAILS = 20;

/** application/x-www-form-urlencoded decoding, strict about percent-encoding (undefined when malformed). */
function _decode(text: string): string | undefined {
  const spaced = text.includes("+") ? text.replaceAll("+", " ") : text;
  if (!spaced.includes("%")) return spaced;
  try {
    return decodeURIComponent(spaced);
  } catch {
    return undefined;
  }
}

/**
 * Query parameters in a prototype-free map (so `__proto__` and `constructor` are names like any
 * other); a repeated name (decision 2) and an undecodable name or value are problems of their own.
 * More than MAX_QUERY_PARAMETERS is one problem and no query (undefined): nothing else is checked.
 */
export function readQuery(search: string, problems: ErrorDetail[]): Record<string, string> | undefined {
  if (search.length <= 1) return EMPTY;
  const query = Object.create(null) as Record<string, string>;
  const pairs = search.slice(1).split("&", MAX_QUERY_PARAMETERS + 1).filter((pair) => pair !== "");
  if (pairs.length > MAX_QUERY_PARAMETERS) {
    problems.push({ path: "query", message: `At most ${MAX_QUERY_PARAMETERS} query parameters are allowed.`, code: "too_many_parameters" });
    return undefined;
  }
  for (const pair of pairs) {
    const equals = pair.indexOf("=");
    const rawName = equals === -1 ? pair : pair.slice(0, equals);
    const rawValue = equals === -1 ? "" : pair.slice(equals + 1);
    const decodedName = _decode(rawName);
    const value = _decode(rawValue);
    const name = decodedName ?? rawName;
    if (name in query) {
      if (!problems.some((p) => p.path === name && p.code === "repeated_parameter")) {
        problems.push({ path: name, message: `Query parameter "${name}" must not be repeated.`, code: "repeated_parameter" });
      }
      continue;
    }
    if (decodedName === undefined || value === undefined) {
      problems.push({ path: name, message: `Query parameter "${name}" is not valid percent-encoding.`, code: "invalid_format" });
    }
    // Undecodable text stays as sent, so the schema reports nothing else about it.
    query[name] = value ?? rawValue;
  }
  return query;
}

/** The details of one answer, bounded: 19 problems and a 20th that counts the rest. */
export function boundedDetails(details: readonly ErrorDetail[]): readonly ErrorDetail[] {
  if (details.length <= MAX_DETAILS) return details;
  const more = details.length - (MAX_DETAILS - 1);
  return [
    ...details.slice(0, MAX_DETAILS - 1),
    { path: "request", message: `${more} more problems were found; only the first ${MAX_DETAILS - 1} are listed.`, code: "more_problems" },
  ];
}

/** Route parameters arrive in their wire encoding; an undecodable one is reported, not thrown. */
export function readParams(raw: Record<string, string> | undefined, problems: ErrorDetail[]): Record<string, string> {
  if (raw === undefined) return EMPTY;
  const params = Object.create(null) as Record<string, string>;
  for (const name in raw) {
    const value = raw[name]!;
    if (!value.includes("%")) {
      params[name] = value;
      continue;
    }
    try {
      params[name] = decodeURIComponent(value);
    } catch {
      problems.push({ path: name, message: `Path parameter "${name}" is not valid percent-encoding.`, code: "invalid_format" });
      params[name] = value;
    }
  }
  return params;
}

/** `["body", "types", 1]` → `types[1]`; the container segment (params/query/body) is dropped. */
function _formatPath(path: readonly PropertyKey[]): string {
  let out = "";
  for (let i = 1; i < path.length; i++) {
    const segment = path[i]!;
    if (typeof segment === "number") out += `[${segment}]`;
    else out += out === "" ? String(segment) : `.${String(segment)}`;
  }
  return out === "" ? String(path[0] ?? "request") : out;
}

const containerSubjects: Record<string, { item: string; whole: string }> = {
  params: { item: "Path parameter", whole: "The path" },
  query: { item: "Query parameter", whole: "The query string" },
  body: { item: "Body field", whole: "The body" },
};

/** Whom a sentence is about: `Query parameter "limit"`, `Body field "types[1]"`, `The body`. */
function _subject(path: readonly PropertyKey[]): string {
  const container = containerSubjects[String(path[0])] ?? containerSubjects.query!;
  return path.length <= 1 ? container.whole : `${container.item} "${_formatPath(path)}"`;
}

const typeNames: Record<string, string> = {
  int: "an integer", number: "a number", string: "a string", boolean: "a boolean", array: "an array", object: "a JSON object",
};

function _bound(issue: { origin?: string; inclusive?: boolean }, limit: number | bigint, least: boolean): string {
  const n = Number(limit);
  if (issue.origin === "string") return `must be ${least ? "at least" : "at most"} ${n} characters long`;
  if (issue.origin === "array") return `must hold ${least ? "at least" : "at most"} ${n} ${n === 1 ? "item" : "items"}`;
  if (issue.inclusive === false) return `must be ${least ? "greater" : "less"} than ${n}`;
  return `must be ${least ? "at least" : "at most"} ${n}`;
}

/**
 * zod's own wording ("Invalid input: expected string, received undefined") never reaches a
 * caller: every issue whose schema gives no message of ours gets a predicate from its kind, which
 * `issuesToDetails` completes with the parameter's name. Pass it as the `error` option of the
 * request schema's `safeParse`.
 */
export function requestIssuePredicate(issue: z.core.$ZodRawIssue): string {
  switch (issue.code) {
    case "invalid_type":
      return issue.input === undefined ? "is required" : `must be ${typeNames[issue.expected] ?? `of type ${issue.expected}`}`;
    case "too_small":
      return _bound(issue, issue.minimum, true);
    case "too_big":
      return _bound(issue, issue.maximum, false);
    case "invalid_value":
      return issue.values.length === 1
        ? `must be ${JSON.stringify(issue.values[0])}`
        : `must be one of: ${issue.values.map(String).join(", ")}`;
    case "invalid_format":
      return issue.format === "regex" ? "is not in the expected format" : `must be a valid ${issue.format}`;
    case "unrecognized_keys":
      return "is not allowed";
    default:
      return "is not valid";
  }
}

const unknownKeyCode: Record<string, string> = { query: "unknown_parameter", body: "unknown_field", params: "unknown_parameter" };

/**
 * Every `details[].message` is one of our sentences naming the parameter or body field. A message
 * that is already a sentence (ends with a full stop) is kept; any other is a predicate ("must be an
 * integer from 1 to 20", from a schema or from `requestIssuePredicate`) and gets its subject here.
 */
export function issuesToDetails(issues: readonly z.core.$ZodIssue[], into: ErrorDetail[]): ErrorDetail[] {
  for (const issue of issues) {
    if (issue.code === "unrecognized_keys") {
      const container = String(issue.path[0]);
      for (const key of issue.keys) {
        const path = [...issue.path, key];
        into.push({ path: _formatPath(path), message: `${_subject(path)} is not allowed.`, code: unknownKeyCode[container] ?? "unknown_parameter" });
      }
      continue;
    }
    const params = (issue as { params?: { code?: unknown } }).params;
    const code = issue.code === "custom" && typeof params?.code === "string" ? params.code : issue.code;
    const message = issue.message.endsWith(".") ? issue.message : `${_subject(issue.path)} ${issue.message}.`;
    into.push({ path: _formatPath(issue.path), message, code });
  }
  return into;
}
