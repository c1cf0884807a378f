// The rows both key stores read (sqlite/keys.ts, postgres/keys.ts): one query, one summary shape,
// one rule for names and for changing a revoked key.
import { scopesFromColumn, tierFromColumn } from "./_columns.ts";
import type { KeyState } from "./interface.ts";
import { KeyManagementError, type KeySummary } from "./key-store.ts";

export interface KeyRow { id: string; prefix: string; name: string | null; tier: string; scopes: string; state: KeyState; credits: number; created_at: string; updated_at: string }

/** Every key with its balance; the PostgreSQL key store runs the same query. */
export const SELECT_KEYS = `
  SELECT k.id, k.prefix, k.name, k.tier, k.scopes, k.state, coalesce(b.credits, 0) AS credits,
         k.created_at, k.updated_at
  FROM keys k LEFT JOIN balances b ON b.key_id = k.id`;
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

export function toSummary(row: KeyRow): KeySummary {
  return {
    id: row.id,
    prefix: row.prefix,
    name: row.name,
    tier: tierFromColumn(row.tier),
    scopes: [...scopesFromColumn(row.scopes)],
    state: row.state,
    credits: row.credits,
    created_at: row.created_at,
    updated_at: row.updated_at,
  };
}
