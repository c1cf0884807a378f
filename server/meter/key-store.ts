// Key management behind one interface for both meters: `cei keys` (and the tests) open a store by
// location (open.ts), a file path (SQLite) or a postgres:// URL, and every change is one
// transaction there. Operators' values are checked here, the same way for both.
import { scopes as allScopes, tiers, type Scope, type Tier } from "../policy.ts";
import { isScope, isTier } from "./_columns.ts";
import type { KeyState } from "./interface.ts";

/** A problem an operator can fix (unknown id, bad value): printed as one line, never a stack trace. */
export class KeyManagementError extends Error {
  override name = "KeyManagementError";
}

export const refillSchedules = ["day", "month"] as const;
export type RefillEvery = (typeof refillSchedules)[number];
/** Top the balance up to `to` once per UTC day or month (decision 37). */
export interface Refill { every: RefillEvery; to: number }

/** One admin action as the audit log keeps it. */
export interface AuditEntry {
  seq: number;
  at: string;
  actor: string;
  action: string;
  key_id: string | null;
  /** The action's own arguments (an amount, a grace period, the other key of a transfer). */
  detail: Record<string, unknown> | null;
  before: Record<string, unknown> | null;
  after: Record<string, unknown> | null;
}

export const usageDimensions = ["key", "day", "operation"] as const;
export type UsageDimension = (typeof usageDimensions)[number];
/** `from` inclusive, `to` exclusive (ms since the epoch); either may be left open. */
export interface UsageQuery { from?: number; to?: number; by: readonly UsageDimension[] }
/** One group of the usage report: the dimensions asked for (a key's name beside its id), then its figures. */
export interface UsageRow {
  key_id?: string;
  name?: string | null;
  day?: string;
  operation?: string;
  requests: number;
  credits: number;
}

export interface KeySummary {
  id: string;
  prefix: string;
  name: string | null;
  tier: Tier;
  scopes: Scope[];
  /** "expired" once `expires_at` has passed (a revoked key stays "revoked"). */
  state: KeyState | "expired";
  credits: number;
  expires_at: string | null;
  refill: Refill | null;
  /** The minute of the key's last request counted in its rate window (decision 27: every request of an active key). */
  last_used_at: string | null;
  created_at: string;
  updated_at: string;
}
/** `key` is the secret: returned once, at creation or reroll, and stored nowhere. */
export interface CreatedKey extends KeySummary { key: string }

export interface NewKey { tier: Tier; credits: number; scopes?: readonly Scope[]; name?: string; expiresAt?: number }

/**
 * Every change is one transaction that also writes its audit entry (decision 37), by the store's
 * actor. A change that shows or moves a balance first applies a refill that is due.
 */
export interface KeyStore {
  create(options: NewKey, now: number): Promise<CreatedKey>;
  list(now: number): Promise<KeySummary[]>;
  disable(id: string, now: number): Promise<KeySummary>;
  enable(id: string, now: number): Promise<KeySummary>;
  /** Final: a revoked key can never be enabled, credited or changed again. */
  revoke(id: string, now: number): Promise<KeySummary>;
  credit(id: string, amount: number, now: number): Promise<KeySummary>;
  setTier(id: string, tier: Tier, now: number): Promise<KeySummary>;
  setScopes(id: string, scopes: readonly Scope[], now: number): Promise<KeySummary>;
  /** A new secret for the same key; the old one is accepted for `graceMs` more (0: not at all). */
  reroll(id: string, graceMs: number, now: number): Promise<CreatedKey>;
  /** The key ends at `at` (403 from then on); null: it never expires. */
  expire(id: string, at: number | null, now: number): Promise<KeySummary>;
  /** Top the balance up to `refill.to` once per UTC day or month, from the next period on; null: no refill. */
  setRefill(id: string, refill: Refill | null, now: number): Promise<KeySummary>;
  /** Take credits away; refused if the balance would go below 0. Allowed on a revoked key. */
  debit(id: string, amount: number, now: number): Promise<KeySummary>;
  /** Move credits from one key to another in one transaction; the first may be revoked, the second not. */
  transfer(from: string, to: string, amount: number, now: number): Promise<[KeySummary, KeySummary]>;
  /** The audit log, oldest first; of one key when `keyId` is given. */
  audit(query: { keyId?: string }): Promise<AuditEntry[]>;
  /** Charged requests and credits from the ledger, grouped as asked. */
  usage(query: UsageQuery): Promise<UsageRow[]>;
  /** The schema version the meter is at (opening a store applies any pending migration). */
  schemaVersion(): Promise<number>;
  close(): Promise<void>;
}

export function parseTier(value: string): Tier {
  if (!isTier(value)) throw new KeyManagementError(`unknown tier "${value}" (expected one of: ${tiers.join(", ")})`);
  return value;
}

/** `a,b,c`: at least one scope, each one of policy.ts's scopes. */
export function parseScopes(value: string): Scope[] {
  const names = value.split(",").map((name) => name.trim()).filter((name) => name !== "");
  if (names.length === 0) throw new KeyManagementError("no scopes given (expected a comma-separated list)");
  const unknown = names.filter((name) => !isScope(name));
  if (unknown.length > 0) {
    throw new KeyManagementError(`unknown scope(s) ${unknown.map((name) => `"${name}"`).join(", ")} (expected: ${allScopes.join(", ")})`);
  }
  return names as Scope[];
}

/** Whole credits: `min` 0 for an opening balance, 1 for a top-up, a debit or a transfer. */
export function parseCredits(value: string, min: 0 | 1): number {
  const credits = /^\d+$/.test(value) ? Number(value) : Number.NaN;
  if (!Number.isSafeInteger(credits) || credits < min) {
    throw new KeyManagementError(`invalid credit amount "${value}" (expected a whole number >= ${min})`);
  }
  return credits;
}
