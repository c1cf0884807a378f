// Key management for operators (the `cei keys` command): issue, list, change state, top up,
// change tier and scopes. Each change is one transaction; every credit change has a ledger row.
import { scopes as allScopes, type Scope, type Tier } from "../../policy.ts";
import type { MeterDatabase } from "./database.ts";
import { scopesToColumn } from "../_columns.ts";
import { checkedName, revokedError, SELECT_KEYS, toSummary, type KeyRow } from "../_key-rows.ts";
import { displayPrefix, hashSecret, newKeyId, newSecret } from "../secret.ts";
import type { KeyState } from "../interface.ts";
import { balanceTooLarge, KeyManagementError, MAX_BALANCE, type CreatedKey, type KeyStore, type KeySummary, type NewKey } from "../key-store.ts";

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
    const credited = db.prepare("UPDATE balances SET credits = credits + ? WHERE key_id = ? AND credits <= ?").run(amount, id, MAX_BALANCE - amount);
    if (credited.changes === 0) throw balanceTooLarge(id, amount);
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

/** The SQLite file's key functions (above), which are synchronous, as a KeyStore. */
export class SqliteKeyStore implements KeyStore {
  readonly #db: MeterDatabase;

  constructor(db: MeterDatabase) {
    this.#db = db;
  }

  create = async (options: NewKey, now: number) => createKey(this.#db, options, now);
  list = async () => listKeys(this.#db);
  disable = async (id: string, now: number) => disableKey(this.#db, id, now);
  enable = async (id: string, now: number) => enableKey(this.#db, id, now);
  revoke = async (id: string, now: number) => revokeKey(this.#db, id, now);
  credit = async (id: string, amount: number, now: number) => creditKey(this.#db, id, amount, now);
  setTier = async (id: string, tier: Tier, now: number) => setKeyTier(this.#db, id, tier, now);
  setScopes = async (id: string, scopes: readonly Scope[], now: number) => setKeyScopes(this.#db, id, scopes, now);
  schemaVersion = async () => this.#db.prepare<[], number>("SELECT max(version) FROM schema_migrations").pluck().get() ?? 0;
  close = async () => void this.#db.close();
}
