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

const unknownKeyCode: Record<string, string> = { query: "unknown_parameter", body: "unknown_field", params: "unknown_parameter" };

export function issuesToDetails(issues: readonly z.core.$ZodIssue[], into: ErrorDetail[]): ErrorDetail[] {
  for (const issue of issues) {
    if (issue.code === "unrecognized_keys") {
      for (const key of issue.keys) {
        const path = _formatPath([...issue.path, key]);
        const container = String(issue.path[0]);
        const what = container === "body" ? "Body field" : "Query parameter";
        into.push({ path, message: `${what} "${path}" is not allowed.`, code: unknownKeyCode[container] ?? "unknown_parameter" });
      }
      continue;
    }
    const params = (issue as { params?: { code?: unknown } }).params;
    const code = issue.code === "custom" && typeof params?.code === "string" ? params.code : issue.code;
    into.push({ path: _formatPath(issue.path), message: issue.message, code });
  }
  return into;
}
