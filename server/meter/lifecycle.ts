// The key lifecycle's rules, the same for both meters (decision 37): grace periods, expiry moments,
// refill schedules and their periods, who an admin action is by, and what an audit entry records.
import { userInfo } from "node:os";
import { scopesFromColumn, tierFromColumn } from "./_columns.ts";
import type { KeyRecord, KeyState } from "./interface.ts";
import { KeyManagementError, refillSchedules, type AuditEntry, type KeySummary, type RefillEvery } from "./key-store.ts";

const UNIT_MS = { s: 1_000, m: 60_000, h: 3_600_000, d: 86_400_000 } as const;
/** A retired secret outliving this is a second key, not a rotation. */
const MAX_GRACE_MS = 365 * UNIT_MS.d;

/** `--grace`: `0`, or a whole number of seconds, minutes, hours or days (`90s`, `30m`, `24h`, `7d`). */
export function parseGrace(value: string): number {
  if (value === "0") return 0;
  const match = /^(\d{1,9})([smhd])$/.exec(value);
  const ms = match === null ? Number.NaN : Number(match[1]) * UNIT_MS[match[2] as keyof typeof UNIT_MS];
  if (!(ms >= 0 && ms <= MAX_GRACE_MS)) {
    throw new KeyManagementError(`invalid grace "${value}" (expected 0, or a whole number with s, m, h or d such as 24h, at most 365d)`);
  }
  return ms;
}

/** How a grace period is written back (audit entries, messages): the largest whole unit. */
export function formatGrace(ms: number): string {
  for (const unit of ["d", "h", "m"] as const) if (ms > 0 && ms % UNIT_MS[unit] === 0) return `${ms / UNIT_MS[unit]}${unit}`;
  return ms === 0 ? "0" : `${ms / 1000}s`;
}

/** A key that is not revoked is expired once its moment has passed, whatever else its state. */
export function effectiveState(stored: KeyState, expiresAt: number | null, now: number): KeyState | "expired" {
  return stored !== "revoked" && expiresAt !== null && expiresAt <= now ? "expired" : stored;
}

/** A key found by a secret, as both meters read it: `validUntil` when the secret is one a reroll replaced. */
export function keyRecordOf(
  row: { id: string; tier: string; scopes: string; state: KeyState; expires_at: string | null }, secretSha256: string, validUntil: string | null,
): KeyRecord {
  return {
    id: row.id, tier: tierFromColumn(row.tier), scopes: scopesFromColumn(row.scopes), state: row.state, secretSha256,
    expiresAt: row.expires_at === null ? null : Date.parse(row.expires_at),
    graceUntil: validUntil === null ? null : Date.parse(validUntil),
  };
}

/**
 * The key a looked-up (or cached) record names at `now`: undefined once a rerolled secret's grace
 * is over (401 like any unknown secret), expired once its moment has passed. A record with neither
 * moment is returned as it is, without reading the clock.
 */
export function keyAt(record: KeyRecord, now: () => number): KeyRecord | undefined {
  if (record.expiresAt === null && record.graceUntil === null) return record;
  const at = now();
  if (record.graceUntil !== null && record.graceUntil <= at) return undefined;
  const state = effectiveState(record.state as KeyState, record.expiresAt, at);
  return state === record.state ? record : { ...record, state };
}

export function parseRefillEvery(value: string): RefillEvery {
  if (!(refillSchedules as readonly string[]).includes(value)) {
    throw new KeyManagementError(`invalid refill schedule "${value}" (expected one of: ${refillSchedules.join(", ")})`);
  }
  return value as RefillEvery;
}

/**
 * The refill period `now` falls in: its UTC day (`2026-11-21`) or month (`2026-11`). A balance
 * records the last period it was refilled for; one schedule's periods compare as strings.
 */
export function refillPeriod(every: RefillEvery, now: number): string {
  return new Date(now).toISOString().slice(0, every === "day" ? 10 : 7);
}

/**
 * Who an admin action is by when `--actor` does not say: the OS user running the command, or its
 * uid where the system has no name for it (a container without a passwd entry).
 */
export function defaultActor(): string {
  try {
    return userInfo().username;
  } catch {
    return process.env.USER ?? `uid ${process.getuid?.() ?? "unknown"}`;
  }
}

export function checkedActor(actor: string): string {
  if (actor.length === 0 || actor.length > 200) throw new KeyManagementError("an actor must be 1-200 characters");
  return actor;
}

/** The fields of a key an audit entry compares; its timestamps and last use change without an admin. */
const AUDITED = ["prefix", "name", "tier", "scopes", "state", "credits", "expires_at", "refill"] as const satisfies ReadonlyArray<keyof KeySummary>;
type Audited = Partial<Pick<KeySummary, (typeof AUDITED)[number]>>;

/** What one admin action changed: the audited fields that differ, as they were and as they are. */
export function auditedChange(before: KeySummary | null, after: KeySummary | null): { before: Audited | null; after: Audited | null } {
  const pick = (key: KeySummary, fields: ReadonlyArray<(typeof AUDITED)[number]>): Audited =>
    Object.fromEntries(fields.map((field) => [field, key[field]])) as Audited;
  if (before === null || after === null) {
    return { before: before === null ? null : pick(before, AUDITED), after: after === null ? null : pick(after, AUDITED) };
  }
  const changed = AUDITED.filter((field) => JSON.stringify(before[field]) !== JSON.stringify(after[field]));
  return { before: pick(before, changed), after: pick(after, changed) };
}

/** An audit row as both meters store it: the JSON columns as text. */
export interface AuditRow { seq: number; at: string; actor: string; action: string; key_id: string | null; detail: string | null; before: string | null; after: string | null }

export const INSERT_AUDIT = "INSERT INTO audit_log (at, actor, action, key_id, detail, before, after) VALUES (?, ?, ?, ?, ?, ?, ?)";
export const SELECT_AUDIT = "SELECT seq, at, actor, action, key_id, detail, before, after FROM audit_log";

/** The values of INSERT_AUDIT for one action on one key (or none: a migration). */
export function auditValues(
  at: string, actor: string, action: string, keyId: string | null,
  change: { before: KeySummary | null; after: KeySummary | null } | null, detail?: Record<string, unknown>,
): unknown[] {
  const { before, after } = change === null ? { before: null, after: null } : auditedChange(change.before, change.after);
  const json = (value: object | null | undefined) => (value === null || value === undefined ? null : JSON.stringify(value));
  return [at, actor, action, keyId, json(detail), json(before), json(after)];
}

export function toAuditEntry(row: AuditRow): AuditEntry {
  const parse = (text: string | null) => (text === null ? null : (JSON.parse(text) as Record<string, unknown>));
  return { seq: row.seq, at: row.at, actor: row.actor, action: row.action, key_id: row.key_id, detail: parse(row.detail), before: parse(row.before), after: parse(row.after) };
}
