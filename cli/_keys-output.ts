// How `cei keys` prints keys, audit entries and usage on a terminal, as CSV, or as JSON. Anything an
// operator or a caller wrote (a key's name, an actor) is escaped, so that it cannot rewrite the
// terminal or reorder what is shown.
import type { AuditEntry, KeySummary, UsageDimension, UsageRow } from "../server/meter/key-store.ts";
import { scopes as allScopes } from "../server/policy.ts";

export function printJson(value: unknown): void {
  console.log(JSON.stringify(value));
}

/** Control and bidi formatting characters written as \u{...}, quotes and backslashes escaped. */
function _escaped(text: string): string {
  return text.replace(/[\\"\u0000-\u001F\u007F-\u009F\u202A-\u202E\u2066-\u2069]/g, (char) =>
    char === "\\" || char === '"' ? `\\${char}` : `\\u{${char.codePointAt(0)!.toString(16).toUpperCase().padStart(4, "0")}}`);
}

/** A label as it can be shown on a terminal, in quotes. */
function quotedLabel(label: string): string {
  return `"${_escaped(label)}"`;
}

/** `2026-11-21T18:29Z`: last use is recorded to the minute. */
function minute(iso: string): string {
  return `${iso.slice(0, 16)}Z`;
}

export function describeKey(key: KeySummary): string {
  const parts = [key.state, `tier ${key.tier}`, `${key.credits} credits`,
    key.scopes.length === allScopes.length ? "all scopes" : `scopes ${key.scopes.join(",")}`];
  if (key.expires_at !== null) parts.push(`${key.state === "expired" ? "expired" : "expires"} ${key.expires_at}`);
  if (key.refill !== null) parts.push(`refill to ${key.refill.to} every ${key.refill.every}`);
  parts.push(key.last_used_at === null ? "never used" : `last used ${minute(key.last_used_at)}`);
  if (key.name !== null) parts.push(`name ${quotedLabel(key.name)}`);
  return parts.join(", ");
}

function _value(value: unknown): string {
  if (typeof value === "string") return quotedLabel(value);
  if (value !== null && typeof value === "object" && !Array.isArray(value)) {
    return Object.entries(value).map(([field, inner]) => `${field} ${_value(inner)}`).join(" ");
  }
  return Array.isArray(value) ? value.join(",") : String(value);
}

/** `field before → after` for what changed; for a key created, its fields as they were set. */
function _changes(entry: AuditEntry): string[] {
  const { before, after } = entry;
  if (after === null) return [];
  return Object.keys(after).map((field) =>
    before === null || !(field in before) ? `${field} ${_value(after[field])}` : `${field} ${_value(before[field])} → ${_value(after[field])}`);
}

export function printAudit(entries: readonly AuditEntry[]): void {
  if (entries.length === 0) return console.log("no audit entries");
  for (const entry of entries) {
    const detail = entry.detail === null ? [] : Object.entries(entry.detail).map(([field, value]) => `${field} ${_value(value)}`);
    const what = [...detail, ..._changes(entry)].join("; ");
    console.log(`${entry.at}  ${quotedLabel(entry.actor)}  ${entry.action}  ${entry.key_id ?? "-"}${what === "" ? "" : `  ${what}`}`);
  }
}

/** RFC 4180: a field holding a comma, a quote or a line break is quoted, its quotes doubled. */
function _csvField(value: string): string {
  return /[",\r\n]/.test(value) ? `"${value.replaceAll('"', '""')}"` : value;
}

export function printUsage(rows: readonly UsageRow[], by: readonly UsageDimension[], csv: boolean): void {
  const columns = by.flatMap((dimension): Array<keyof UsageRow> => (dimension === "key" ? ["key_id", "name"] : [dimension]));
  const header = [...columns, "requests", "credits"] as Array<keyof UsageRow>;
  const cells = rows.map((row) => header.map((column) => {
    const value = row[column];
    if (value === null || value === undefined) return "";
    return typeof value === "string" ? (csv ? value : _escaped(value)) : String(value);
  }));
  if (csv) {
    for (const line of [header, ...cells]) console.log(line.map((cell) => _csvField(String(cell))).join(","));
    return;
  }
  if (rows.length === 0) return console.log("no charged requests in this period");
  const total = ["total", ...columns.slice(1).map(() => ""),
    String(rows.reduce((sum, row) => sum + row.requests, 0)), String(rows.reduce((sum, row) => sum + row.credits, 0))];
  const table = [header.map(String), ...cells, total];
  const widths = header.map((_, i) => Math.max(...table.map((line) => line[i]!.length)));
  // Text left-aligned, figures right-aligned.
  const figures = header.length - 2;
  for (const line of table) console.log(line.map((cell, i) => (i >= figures ? cell.padStart(widths[i]!) : cell.padEnd(widths[i]!))).join("  ").trimEnd());
}
