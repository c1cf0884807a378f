// Key management for operators (the `cei keys` command): issue, list, change state, top up,
// change tier and scopes. Each change is one transaction; every credit change has a ledger row.
import { scopes as allScopes, tiers, type Scope, type Tier } from "../policy.ts";
import type { MeterDatabase } from "./_database.ts";
import { isScope, isTier, scopesFromColumn, scopesToColumn, tierFromColumn } from "./_columns.ts";
import { displayPrefix, hashSecret, newKeyId, newSecret } from "./_secret.ts";
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

export interface KeyRow { id: string; prefix: string; name: string | null; tier: string; scopes: string; state: KeyState; credits: number; created_at: string; updated_at: string }

/** Every key with its balance; the PostgreSQL key store runs the same query. */
export const SELECT_KEYS = `
  SELECT k.id, k.prefix, k.name, k.tier, k.scopes, k.state, coalesce(b.credits, 0) AS credits,
         k.created_at, k.updated_at
  FROM keys k LEFT JOIN balances b ON b.key_id = k.id`;
const MAX_NAME_LENGTH = 200;

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

/** Whole credits: `min` 0 for an opening balance, 1 for a top-up. */
export function parseCredits(value: string, min: 0 | 1): number {
  const credits = /^\d+$/.test(value) ? Number(value) : Number.NaN;
  if (!Number.isSafeInteger(credits) || credits < min) {
    throw new KeyManagementError(`invalid credit amount "${value}" (expected a whole number >= ${min})`);
  }
  return credits;
}

export function createKey(
  db: MeterDatabase,
  options: { tier: Tier; credits: number; scopes?: readonly Scope[]; name?: string },
  now: number,
): CreatedKey {
  const name = checkedName(options.name);
  const id = newKeyId();
  const secret = newSecret();
  const at = new Date(now).toISOString();
  db.transaction(() => {
    db.prepare(`INSERT INTO keys (id, secret_sha256, prefix, name, tier, scopes, state, created_at, updated_at)
                VALUES (?, ?, ?, ?, ?, ?, 'active', ?, ?)`)
      .run(id, hashSecret(secret), displayPrefix(secret), name, options.tier, scopesToColumn(options.scopes ?? allScopes), at, at);
    db.prepare("INSERT INTO balances (key_id, credits) VALUES (?, ?)").run(id, options.credits);
    if (options.credits > 0) recordTopUp(db, id, options.credits, at);
  }).immediate();
  return { ...getKey(db, id), key: secret };
}

export function checkedName(name: string | undefined): string | null {
  if (name !== undefined && (name.length === 0 || name.length > MAX_NAME_LENGTH)) {
    throw new KeyManagementError(`a key name must be 1-${MAX_NAME_LENGTH} characters`);
  }
  return name ?? null;
}

export function revokedError(verb: string, id: string): KeyManagementError {
  return new KeyManagementError(`cannot ${verb} key "${id}": it is revoked, and revocation is final`);
}

export function listKeys(db: MeterDatabase): KeySummary[] {
  return (db.prepare(`${SELECT_KEYS} ORDER BY k.created_at, k.id`).all() as KeyRow[]).map(toSummary);
}

export function getKey(db: MeterDatabase, id: string): KeySummary {
  const row = db.prepare(`${SELECT_KEYS} WHERE k.id = ?`).get(id) as KeyRow | undefined;
  if (row === undefined) throw new KeyManagementError(`no key with id "${id}"`);
  return toSummary(row);
}

/** Disabled keys get 403 until enabled again. */
export function disableKey(db: MeterDatabase, id: string, now: number): KeySummary {
  return changeKey(db, id, now, "disable", { state: "disabled" });
}

export function enableKey(db: MeterDatabase, id: string, now: number): KeySummary {
  return changeKey(db, id, now, "enable", { state: "active" });
}

/** Final: a revoked key can never be enabled, credited or changed again. */
export function revokeKey(db: MeterDatabase, id: string, now: number): KeySummary {
  return db.transaction(() => {
    if (getKey(db, id).state !== "revoked") {
      db.prepare("UPDATE keys SET state = 'revoked', updated_at = ? WHERE id = ?").run(new Date(now).toISOString(), id);
    }
    return getKey(db, id);
  }).immediate();
}

export function creditKey(db: MeterDatabase, id: string, amount: number, now: number): KeySummary {
  if (!Number.isSafeInteger(amount) || amount < 1) throw new KeyManagementError(`invalid credit amount ${amount}`);
  return changeKey(db, id, now, "credit", {}, (at) => {
    db.prepare("UPDATE balances SET credits = credits + ? WHERE key_id = ?").run(amount, id);
    recordTopUp(db, id, amount, at);
  });
}

export function setKeyTier(db: MeterDatabase, id: string, tier: Tier, now: number): KeySummary {
  return changeKey(db, id, now, "change the tier of", { tier });
}

export function setKeyScopes(db: MeterDatabase, id: string, scopes: readonly Scope[], now: number): KeySummary {
  if (scopes.length === 0) throw new KeyManagementError("a key needs at least one scope");
  return changeKey(db, id, now, "change the scopes of", { scopes: scopesToColumn(scopes) });
}

function changeKey(
  db: MeterDatabase,
  id: string,
  now: number,
  verb: string,
  columns: { state?: KeyState; tier?: Tier; scopes?: string },
  alsoDo?: (at: string) => void,
): KeySummary {
  return db.transaction(() => {
    if (getKey(db, id).state === "revoked") {
      throw revokedError(verb, id);
    }
    const at = new Date(now).toISOString();
    db.prepare(`UPDATE keys SET state = coalesce(?, state), tier = coalesce(?, tier), scopes = coalesce(?, scopes),
                updated_at = ? WHERE id = ?`)
      .run(columns.state ?? null, columns.tier ?? null, columns.scopes ?? null, at, id);
    alsoDo?.(at);
    return getKey(db, id);
  }).immediate();
}

function recordTopUp(db: MeterDatabase, id: string, amount: number, at: string): void {
  db.prepare("INSERT INTO ledger (key_id, kind, operation, delta, request_id, created_at) VALUES (?, 'top_up', NULL, ?, NULL, ?)")
    .run(id, amount, at);
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
