// Key management for operators (the `cei keys` command): issue, list, change state, top up, debit
// and transfer, change tier and scopes, reroll, expire, refill. Each change is one transaction that
// also writes its audit entry; every credit change has a ledger row.
import { scopes as allScopes, type Scope, type Tier } from "../../policy.ts";
import type { MeterDatabase } from "./database.ts";
import { SqliteRefills } from "./_refill.ts";
import { scopesToColumn } from "../_columns.ts";
import {
  ADD_CREDITS, FORGET_RETIRED, INSERT_KEY, INSERT_LEDGER, REFILLED_KEYS, RETIRE_SECRET, SELECT_KEYS, SET_EXPIRY, SET_REFILL,
  SET_REFILLED_FOR, SET_SECRET, TAKE_CREDITS, KEY_SECRET, balanceTooLargeError, checkedAmount, checkedExpiry, checkedName, overdrawnError, revokedError, toSummary, unknownKeyError,
  type KeyRow,
} from "../_key-rows.ts";
import { displayPrefix, hashSecret, newKeyId, newSecret } from "../secret.ts";
import type { KeyState } from "../interface.ts";
import {
  KeyManagementError, type AuditEntry, type CreatedKey, type KeyStore, type KeySummary, type NewKey, type Refill, type UsageQuery, type UsageRow,
} from "../key-store.ts";
import { INSERT_AUDIT, SELECT_AUDIT, auditValues, defaultActor, formatGrace, parseRefillEvery, refillPeriod, toAuditEntry, type AuditRow } from "../lifecycle.ts";
import { sortedUsage, usageStatement } from "../usage.ts";

export function createKey(db: MeterDatabase, options: NewKey, now: number, actor = defaultActor()): CreatedKey {
  const name = checkedName(options.name);
  checkedExpiry(options.expiresAt, now);
  const id = newKeyId();
  const secret = newSecret();
  const at = new Date(now).toISOString();
  const expiresAt = options.expiresAt === undefined ? null : new Date(options.expiresAt).toISOString();
  const created = db.transaction(() => {
    db.prepare(INSERT_KEY).run(id, hashSecret(secret), displayPrefix(secret), name, options.tier, scopesToColumn(options.scopes ?? allScopes), at, at, expiresAt);
    db.prepare("INSERT INTO balances (key_id, credits) VALUES (?, ?)").run(id, options.credits);
    if (options.credits > 0) db.prepare(INSERT_LEDGER).run(id, "top_up", options.credits, at);
    const after = getKey(db, id, now);
    _audit(db, at, actor, "create", id, { before: null, after });
    return after;
  }).immediate();
  return { ...created, key: secret };
}

/** Every key, refills that are due applied first (so the balances shown are the balances). */
export function listKeys(db: MeterDatabase, now = Date.now()): KeySummary[] {
  return db.transaction(() => {
    const refills = new SqliteRefills(db);
    for (const id of db.prepare<[], string>(REFILLED_KEYS).pluck().all()) _applyDueRefill(db, refills, id, now);
    return (db.prepare(`${SELECT_KEYS} ORDER BY k.created_at, k.id`).all() as KeyRow[]).map((row) => toSummary(row, now));
  }).immediate();
}

export function getKey(db: MeterDatabase, id: string, now: number): KeySummary {
  const row = db.prepare(`${SELECT_KEYS} WHERE k.id = ?`).get(id) as KeyRow | undefined;
  if (row === undefined) throw unknownKeyError(id);
  return toSummary(row, now);
}

/** Disabled keys get 403 until enabled again. */
export function disableKey(db: MeterDatabase, id: string, now: number, actor = defaultActor()): KeySummary {
  return _change(db, id, now, actor, "disable", () => _setColumns(db, id, now, { state: "disabled" }));
}

export function enableKey(db: MeterDatabase, id: string, now: number, actor = defaultActor()): KeySummary {
  return _change(db, id, now, actor, "enable", () => _setColumns(db, id, now, { state: "active" }));
}

/** Final: a revoked key can never be enabled, credited or changed again. */
export function revokeKey(db: MeterDatabase, id: string, now: number, actor = defaultActor()): KeySummary {
  return _change(db, id, now, actor, "revoke", (before) => {
    if (before.state !== "revoked") _setColumns(db, id, now, { state: "revoked" });
  }, { revoked: "allowed" });
}

export function creditKey(db: MeterDatabase, id: string, amount: number, now: number, actor = defaultActor()): KeySummary {
  checkedAmount(amount);
  return _change(db, id, now, actor, "credit", () => {
    _addCredits(db, id, amount, "top_up", now);
    return { amount };
  });
}

/** Takes credits away (never below 0); a revoked key's balance may be taken, it can be spent by nobody else. */
export function debitKey(db: MeterDatabase, id: string, amount: number, now: number, actor = defaultActor()): KeySummary {
  checkedAmount(amount);
  return _change(db, id, now, actor, "debit", (before) => {
    _takeCredits(db, id, amount, "debit", now, before.credits);
    return { amount };
  }, { revoked: "allowed" });
}

/** Moves credits between two keys in one transaction: one audit entry on each, naming the other. */
export function transferCredits(db: MeterDatabase, from: string, to: string, amount: number, now: number, actor = defaultActor()): [KeySummary, KeySummary] {
  checkedAmount(amount);
  if (from === to) throw new KeyManagementError(`cannot transfer credits from key "${from}" to itself`);
  return db.transaction((): [KeySummary, KeySummary] => {
    const refills = new SqliteRefills(db);
    for (const id of [from, to]) _applyDueRefill(db, refills, id, now);
    const [source, target] = [getKey(db, from, now), getKey(db, to, now)];
    if (target.state === "revoked") throw revokedError("transfer credits to", to);
    _takeCredits(db, from, amount, "transfer", now, source.credits);
    _addCredits(db, to, amount, "transfer", now);
    const after: [KeySummary, KeySummary] = [getKey(db, from, now), getKey(db, to, now)];
    const at = new Date(now).toISOString();
    _audit(db, at, actor, "transfer", from, { before: source, after: after[0] }, { amount, to });
    _audit(db, at, actor, "transfer", to, { before: target, after: after[1] }, { amount, from });
    return after;
  }).immediate();
}

export function setKeyTier(db: MeterDatabase, id: string, tier: Tier, now: number, actor = defaultActor()): KeySummary {
  return _change(db, id, now, actor, "tier", () => _setColumns(db, id, now, { tier }), { verb: "change the tier of" });
}

export function setKeyScopes(db: MeterDatabase, id: string, scopes: readonly Scope[], now: number, actor = defaultActor()): KeySummary {
  if (scopes.length === 0) throw new KeyManagementError("a key needs at least one scope");
  return _change(db, id, now, actor, "scopes", () => _setColumns(db, id, now, { scopes: scopesToColumn(scopes) }), { verb: "change the scopes of" });
}

/** A new secret for the same key; the replaced one is accepted for `graceMs` more (0: not at all). */
export function rerollKey(db: MeterDatabase, id: string, graceMs: number, now: number, actor = defaultActor()): CreatedKey {
  const secret = newSecret();
  const at = new Date(now).toISOString();
  const after = _change(db, id, now, actor, "reroll", () => {
    const old = db.prepare<[string], string>(KEY_SECRET).pluck().get(id)!;
    db.prepare(FORGET_RETIRED).run(at);
    const validUntil = graceMs > 0 ? new Date(now + graceMs).toISOString() : null;
    if (validUntil !== null) db.prepare(RETIRE_SECRET).run(old, id, validUntil);
    db.prepare(SET_SECRET).run(hashSecret(secret), displayPrefix(secret), at, id);
    return { grace: formatGrace(graceMs), old_secret_valid_until: validUntil };
  }, { verb: "reroll" });
  return { ...after, key: secret };
}

/** The key ends at `at` (403 from then on); null: it never expires. */
export function expireKey(db: MeterDatabase, id: string, at: number | null, now: number, actor = defaultActor()): KeySummary {
  checkedExpiry(at, now);
  return _change(db, id, now, actor, "expire", () => {
    db.prepare(SET_EXPIRY).run(at === null ? null : new Date(at).toISOString(), new Date(now).toISOString(), id);
  }, { verb: "set the expiry of" });
}

export function setKeyRefill(db: MeterDatabase, id: string, refill: Refill | null, now: number, actor = defaultActor()): KeySummary {
  return _change(db, id, now, actor, "refill", () => {
    db.prepare(SET_REFILL).run(refill?.every ?? null, refill?.to ?? null, new Date(now).toISOString(), id);
    db.prepare(SET_REFILLED_FOR).run(refill === null ? null : refillPeriod(refill.every, now), id);
  }, { verb: "set the refill of" });
}

export function auditLog(db: MeterDatabase, keyId?: string): AuditEntry[] {
  const rows = keyId === undefined
    ? db.prepare(`${SELECT_AUDIT} ORDER BY seq`).all()
    : db.prepare(`${SELECT_AUDIT} WHERE key_id = ? ORDER BY seq`).all(keyId);
  return (rows as AuditRow[]).map(toAuditEntry);
}

export function usageOf(db: MeterDatabase, query: UsageQuery): UsageRow[] {
  const { sql, values } = usageStatement(query);
  return sortedUsage(db.prepare(sql).all(...values) as UsageRow[], query.by);
}

/**
 * Records a migration of an existing meter that the key store's open applied (a new meter's first
 * migrations are its creation; the server's own migrations have no actor).
 */
export function auditMigration(db: MeterDatabase, versions: { from: number; to: number }, now: number, actor: string): void {
  if (versions.from === 0 || versions.from >= versions.to) return;
  db.prepare(INSERT_AUDIT).run(new Date(now).toISOString(), actor, "migrate", null, null,
    JSON.stringify({ schema_version: versions.from }), JSON.stringify({ schema_version: versions.to }));
}

interface ChangeRules {
  /** "allowed": the action may touch a revoked key (revoke itself, taking its credits away). */
  revoked?: "allowed";
  /** How the refusal for a revoked key words the action (default: the action's name). */
  verb?: string;
}

/**
 * One audited change of one key in one transaction: a refill that is due applied first, the key as
 * it was, the change (which may return its arguments for the entry), the key as it is, the entry.
 */
function _change(
  db: MeterDatabase, id: string, now: number, actor: string, action: string,
  apply: (before: KeySummary) => Record<string, unknown> | void, rules: ChangeRules = {},
): KeySummary {
  return db.transaction(() => {
    _applyDueRefill(db, new SqliteRefills(db), id, now);
    const before = getKey(db, id, now);
    if (before.state === "revoked" && rules.revoked !== "allowed") throw revokedError(rules.verb ?? action, id);
    const detail = apply(before) ?? undefined;
    const after = getKey(db, id, now);
    _audit(db, new Date(now).toISOString(), actor, action, id, { before, after }, detail);
    return after;
  }).immediate();
}

function _audit(
  db: MeterDatabase, at: string, actor: string, action: string, id: string,
  change: { before: KeySummary | null; after: KeySummary }, detail?: Record<string, unknown>,
): void {
  db.prepare(INSERT_AUDIT).run(...auditValues(at, actor, action, id, change, detail));
}

function _applyDueRefill(db: MeterDatabase, refills: SqliteRefills, id: string, now: number): void {
  const row = db.prepare<[string], { refill_every: string | null; refill_to: number | null; state: KeyState }>(
    "SELECT refill_every, refill_to, state FROM keys WHERE id = ?").get(id);
  if (row?.refill_every == null || row.refill_to === null || row.state === "revoked") return;
  refills.applyDue(id, parseRefillEvery(row.refill_every), row.refill_to, now);
}

function _setColumns(db: MeterDatabase, id: string, now: number, columns: { state?: KeyState; tier?: Tier; scopes?: string }): void {
  db.prepare(`UPDATE keys SET state = coalesce(?, state), tier = coalesce(?, tier), scopes = coalesce(?, scopes),
              updated_at = ? WHERE id = ?`)
    .run(columns.state ?? null, columns.tier ?? null, columns.scopes ?? null, new Date(now).toISOString(), id);
}

function _addCredits(db: MeterDatabase, id: string, amount: number, kind: "top_up" | "transfer", now: number): void {
  if (db.prepare(ADD_CREDITS).get(amount, id, amount) === undefined) throw balanceTooLargeError(kind === "top_up" ? "credit" : "transfer", amount, id);
  db.prepare(INSERT_LEDGER).run(id, kind, amount, new Date(now).toISOString());
}

function _takeCredits(db: MeterDatabase, id: string, amount: number, kind: "debit" | "transfer", now: number, credits: number): void {
  if (db.prepare(TAKE_CREDITS).get(amount, id, amount) === undefined) throw overdrawnError(kind, amount, id, credits);
  db.prepare(INSERT_LEDGER).run(id, kind, -amount, new Date(now).toISOString());
}

/** The SQLite file's key functions (above), which are synchronous, as a KeyStore. */
export class SqliteKeyStore implements KeyStore {
  readonly #db: MeterDatabase;
  readonly #actor: string;

  constructor(db: MeterDatabase, actor = defaultActor()) {
    this.#db = db;
    this.#actor = actor;
  }

  create = async (options: NewKey, now: number) => createKey(this.#db, options, now, this.#actor);
  list = async (now: number) => listKeys(this.#db, now);
  disable = async (id: string, now: number) => disableKey(this.#db, id, now, this.#actor);
  enable = async (id: string, now: number) => enableKey(this.#db, id, now, this.#actor);
  revoke = async (id: string, now: number) => revokeKey(this.#db, id, now, this.#actor);
  credit = async (id: string, amount: number, now: number) => creditKey(this.#db, id, amount, now, this.#actor);
  setTier = async (id: string, tier: Tier, now: number) => setKeyTier(this.#db, id, tier, now, this.#actor);
  setScopes = async (id: string, scopes: readonly Scope[], now: number) => setKeyScopes(this.#db, id, scopes, now, this.#actor);
  reroll = async (id: string, graceMs: number, now: number) => rerollKey(this.#db, id, graceMs, now, this.#actor);
  expire = async (id: string, at: number | null, now: number) => expireKey(this.#db, id, at, now, this.#actor);
  setRefill = async (id: string, refill: Refill | null, now: number) => setKeyRefill(this.#db, id, refill, now, this.#actor);
  debit = async (id: string, amount: number, now: number) => debitKey(this.#db, id, amount, now, this.#actor);
  transfer = async (from: string, to: string, amount: number, now: number) => transferCredits(this.#db, from, to, amount, now, this.#actor);
  audit = async (query: { keyId?: string }) => auditLog(this.#db, query.keyId);
  usage = async (query: UsageQuery) => usageOf(this.#db, query);
  schemaVersion = async () => this.#db.prepare<[], number>("SELECT max(version) FROM schema_migrations").pluck().get() ?? 0;
  close = async () => void this.#db.close();
}
