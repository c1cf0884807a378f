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

export interface KeySummary {
  id: string;
  prefix: string;
  name: string | null;
  tier: Tier;
  scopes: Scope[];
  state: KeyState;
  credits: number;
  created_at: string;
  updated_at: string;
}
/** `key` is the secret: returned once, at creation, and stored nowhere. */
export interface CreatedKey extends KeySummary { key: string }

export interface NewKey { tier: Tier; credits: number; scopes?: readonly Scope[]; name?: string }

export interface KeyStore {
  create(options: NewKey, now: number): Promise<CreatedKey>;
  list(): Promise<KeySummary[]>;
  disable(id: string, now: number): Promise<KeySummary>;
  enable(id: string, now: number): Promise<KeySummary>;
  /** Final: a revoked key can never be enabled, credited or changed again. */
  revoke(id: string, now: number): Promise<KeySummary>;
  credit(id: string, amount: number, now: number): Promise<KeySummary>;
  setTier(id: string, tier: Tier, now: number): Promise<KeySummary>;
  setScopes(id: string, scopes: readonly Scope[], now: number): Promise<KeySummary>;
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

/**
 * The largest balance a key may hold: 2^53 - 1, the largest integer every JSON reader holds
 * exactly, so `credits_remaining` is always read as it was written (the contract states it).
 */
export const MAX_BALANCE = Number.MAX_SAFE_INTEGER;

/** A top-up that would take the balance past MAX_BALANCE: refused, nothing changed. */
export function balanceTooLarge(id: string, amount: number): KeyManagementError {
  return new KeyManagementError(`crediting ${amount} would take the balance of key ${id} past ${MAX_BALANCE} credits`);
}

/** Whole credits: `min` 0 for an opening balance, 1 for a top-up. */
export function parseCredits(value: string, min: 0 | 1): number {
  const credits = /^\d+$/.test(value) ? Number(value) : Number.NaN;
  if (!Number.isSafeInteger(credits) || credits < min) {
    throw new KeyManagementError(`invalid credit amount "${value}" (expected a whole number >= ${min})`);
  }
  return credits;
}
