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

const EMPTY: Record<string, string> = Object.freeze({}) as Record<string, string>;

/** Query parameters as a plain object; a repeated name is a problem of its own (decision 2). */
export function readQuery(search: string, problems: ErrorDetail[]): Record<string, string> {
  if (search.length <= 1) return EMPTY;
  const query: Record<string, string> = {};
  for (const [name, value] of new URLSearchParams(search)) {
    if (Object.hasOwn(query, name)) {
      if (!problems.some((p) => p.path === name && p.code === "repeated_parameter")) {
        problems.push({ path: name, message: `Query parameter "${name}" must not be repeated.`, code: "repeated_parameter" });
      }
      continue;
    }
    query[name] = value;
  }
  return query;
}

/** Route parameters arrive in their wire encoding; an undecodable one is reported, not thrown. */
export function readParams(raw: Record<string, string> | undefined, problems: ErrorDetail[]): Record<string, string> {
  if (raw === undefined) return EMPTY;
  const params: Record<string, string> = {};
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
