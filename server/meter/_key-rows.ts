// The rows both key stores read and write (sqlite/keys.ts, postgres/keys.ts): the statements, written
// once with `?` placeholders (the PostgreSQL store numbers them), one summary shape, one rule for
// names and for changing a revoked key.
import { scopesFromColumn, tierFromColumn } from "./_columns.ts";
import type { KeyState } from "./interface.ts";
import { KeyManagementError, type KeySummary } from "./key-store.ts";
import { effectiveState, parseRefillEvery } from "./lifecycle.ts";

export interface KeyRow {
  id: string; prefix: string; name: string | null; tier: string; scopes: string; state: KeyState; credits: number;
  expires_at: string | null; refill_every: string | null; refill_to: number | null; last_window: number | null;
  created_at: string; updated_at: string;
}

/**
 * Every key with its balance. `last_used_at` is the start of the key's rate window: windows are a
 * minute long and aligned to the epoch, and every counted request writes the window row anyway
 * (decision 27), so the minute of the last use costs no write of its own.
 */
export const SELECT_KEYS = `
  SELECT k.id, k.prefix, k.name, k.tier, k.scopes, k.state, coalesce(b.credits, 0) AS credits,
         k.expires_at, k.refill_every, k.refill_to, w.window_start AS last_window, k.created_at, k.updated_at
  FROM keys k LEFT JOIN balances b ON b.key_id = k.id LEFT JOIN rate_windows w ON w.key_id = k.id`;

export const INSERT_KEY = `INSERT INTO keys (id, secret_sha256, prefix, name, tier, scopes, state, created_at, updated_at, expires_at)
  VALUES (?, ?, ?, ?, ?, ?, 'active', ?, ?, ?)`;
export const INSERT_LEDGER = "INSERT INTO ledger (key_id, kind, operation, delta, request_id, created_at) VALUES (?, ?, NULL, ?, NULL, ?)";
/**
 * The largest balance a key may hold: 2^53 - 1, the largest integer every JSON reader holds
 * exactly, so `credits_remaining` is always read as it was written (the contract states it).
 */
export const MAX_BALANCE = Number.MAX_SAFE_INTEGER;
/** Changes nothing (and returns no row) when the balance would pass MAX_BALANCE; bind the amount twice. */
export const ADD_CREDITS = `UPDATE balances SET credits = credits + ? WHERE key_id = ? AND credits <= ${MAX_BALANCE} - ? RETURNING credits`;
/** Changes nothing (and returns no row) when the balance would go below 0. */
export const TAKE_CREDITS = "UPDATE balances SET credits = credits - ? WHERE key_id = ? AND credits >= ? RETURNING credits";
export const SET_SECRET = "UPDATE keys SET secret_sha256 = ?, prefix = ?, updated_at = ? WHERE id = ?";
/** A replaced secret kept for its grace period; those whose grace is over are removed at the next reroll. */
export const RETIRE_SECRET = "INSERT INTO retired_secrets (secret_sha256, key_id, valid_until) VALUES (?, ?, ?)";
export const FORGET_RETIRED = "DELETE FROM retired_secrets WHERE valid_until <= ?";
export const SET_EXPIRY = "UPDATE keys SET expires_at = ?, updated_at = ? WHERE id = ?";
export const SET_REFILL = "UPDATE keys SET refill_every = ?, refill_to = ?, updated_at = ? WHERE id = ?";
/** A new schedule starts counting from the period it was set in (that period is not refilled). */
export const SET_REFILLED_FOR = "UPDATE balances SET refilled_for = ? WHERE key_id = ?";
/** Keys whose refill may be due (not revoked, with a schedule): the store applies what is. */
export const REFILLED_KEYS = "SELECT id FROM keys WHERE refill_every IS NOT NULL AND state <> 'revoked'";
export const KEY_SECRET = "SELECT secret_sha256 FROM keys WHERE id = ?";

const MAX_NAME_LENGTH = 200;

export function checkedName(name: string | undefined): string | null {
  if (name !== undefined && (name.length === 0 || name.length > MAX_NAME_LENGTH)) {
    throw new KeyManagementError(`a key name must be 1-${MAX_NAME_LENGTH} characters`);
  }
  return name ?? null;
}

export function revokedError(verb: string, id: string): KeyManagementError {
  return new KeyManagementError(`cannot ${verb} key "${id}": it is revoked, and revocation is final`);
}

export function unknownKeyError(id: string): KeyManagementError {
  return new KeyManagementError(`no key with id "${id}"`);
}

/** Credits an operator adds, takes or moves: a whole number of at least 1. */
export function checkedAmount(amount: number): number {
  if (!Number.isSafeInteger(amount) || amount < 1) throw new KeyManagementError(`invalid credit amount ${amount}`);
  return amount;
}

export function balanceTooLargeError(verb: string, amount: number, id: string): KeyManagementError {
  return new KeyManagementError(`cannot ${verb} ${amount} credits to key "${id}": its balance would pass ${MAX_BALANCE}, the largest a balance may hold`);
}

export function overdrawnError(verb: string, amount: number, id: string, credits: number): KeyManagementError {
  return new KeyManagementError(`cannot ${verb} ${amount} credits from key "${id}": its balance is ${credits}, and a balance never goes below 0`);
}

/** A moment an operator gives must be ahead of now; `now` itself is written as such. */
export function checkedExpiry(at: number | null | undefined, now: number): void {
  if (at !== null && at !== undefined && at < now) {
    throw new KeyManagementError(`${new Date(at).toISOString()} is in the past (use "now" to end the key at once)`);
  }
}

export function toSummary(row: KeyRow, now: number): KeySummary {
  return {
    id: row.id,
    prefix: row.prefix,
    name: row.name,
    tier: tierFromColumn(row.tier),
    scopes: [...scopesFromColumn(row.scopes)],
    state: effectiveState(row.state, row.expires_at === null ? null : Date.parse(row.expires_at), now),
    credits: row.credits,
    expires_at: row.expires_at,
    refill: row.refill_every === null || row.refill_to === null ? null : { every: parseRefillEvery(row.refill_every), to: row.refill_to },
    last_used_at: row.last_window === null ? null : new Date(row.last_window).toISOString(),
    created_at: row.created_at,
    updated_at: row.updated_at,
  };
}
