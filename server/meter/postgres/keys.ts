// Key management on a PostgreSQL meter: the same rules and statements as the SQLite file's
// (sqlite/keys.ts, _key-rows.ts), each change one transaction that locks the key's row first and
// writes its audit entry, every credit change a ledger row.
import type pg from "pg";
import { scopes as allScopes, type Scope, type Tier } from "../../policy.ts";
import { scopesToColumn } from "../_columns.ts";
import { displayPrefix, hashSecret, newKeyId, newSecret } from "../secret.ts";
import {
  KeyManagementError, type AuditEntry, type CreatedKey, type KeyStore, type KeySummary, type NewKey, type Refill, type UsageQuery, type UsageRow,
} from "../key-store.ts";
import {
  ADD_CREDITS, FORGET_RETIRED, INSERT_KEY, INSERT_LEDGER, KEY_SECRET, REFILLED_KEYS, RETIRE_SECRET, SELECT_KEYS, SET_EXPIRY, SET_REFILL,
  SET_REFILLED_FOR, SET_SECRET, TAKE_CREDITS, balanceTooLargeError, checkedAmount, checkedExpiry, checkedName, overdrawnError, revokedError, toSummary,
  unknownKeyError, type KeyRow,
} from "../_key-rows.ts";
import { INSERT_AUDIT, SELECT_AUDIT, auditValues, defaultActor, formatGrace, refillPeriod, toAuditEntry, type AuditRow } from "../lifecycle.ts";
import { sortedUsage, usageStatement } from "../usage.ts";
import type { KeyState } from "../interface.ts";
import { applyPostgresMigrations } from "./_migrations.ts";
import { createPool, inTransaction } from "./pool.ts";

type Query = Pick<pg.PoolClient, "query">;

/** The shared statements' `?` placeholders as PostgreSQL's `$1, $2, ...`. */
function _numbered(sql: string): string {
  let n = 0;
  return sql.replace(/\?/g, () => `$${++n}`);
}

async function _run(client: Query, sql: string, values: unknown[] = []): Promise<pg.QueryResult> {
  return client.query(_numbered(sql), values);
}

interface ChangeRules { revoked?: "allowed"; verb?: string }

export class PostgresKeyStore implements KeyStore {
  readonly #pool: pg.Pool;
  readonly #actor: string;
  #version = 0;

  static async open(url: string, now: () => number, actor = defaultActor()): Promise<PostgresKeyStore> {
    const pool = createPool(url, 1);
    try {
      const store = new PostgresKeyStore(pool, actor);
      const versions = await applyPostgresMigrations(pool, new Date(now()).toISOString());
      store.#version = versions.to;
      // A new meter's first migrations are its creation; an upgrade of an existing one is audited.
      if (versions.from > 0 && versions.from < versions.to) {
        await _run(pool, INSERT_AUDIT, [new Date(now()).toISOString(), actor, "migrate", null, null,
          JSON.stringify({ schema_version: versions.from }), JSON.stringify({ schema_version: versions.to })]);
      }
      return store;
    } catch (error) {
      await pool.end();
      throw error;
    }
  }

  private constructor(pool: pg.Pool, actor: string) {
    this.#pool = pool;
    this.#actor = actor;
  }

  async create(options: NewKey, now: number): Promise<CreatedKey> {
    const name = checkedName(options.name);
    checkedExpiry(options.expiresAt, now);
    const id = newKeyId();
    const secret = newSecret();
    const at = new Date(now).toISOString();
    const expiresAt = options.expiresAt === undefined ? null : new Date(options.expiresAt).toISOString();
    return inTransaction(this.#pool, async (client) => {
      await _run(client, INSERT_KEY, [id, hashSecret(secret), displayPrefix(secret), name, options.tier, scopesToColumn(options.scopes ?? allScopes), at, at, expiresAt]);
      await client.query("INSERT INTO balances (key_id, credits) VALUES ($1, $2)", [id, options.credits]);
      if (options.credits > 0) await _run(client, INSERT_LEDGER, [id, "top_up", options.credits, at]);
      const after = await _getKey(client, id, now);
      await this.#audit(client, at, "create", id, { before: null, after });
      return { ...after, key: secret };
    });
  }

  /** Every key, refills that are due applied first (so the balances shown are the balances). */
  async list(now: number): Promise<KeySummary[]> {
    return inTransaction(this.#pool, async (client) => {
      const { rows: due } = await client.query<{ id: string }>(REFILLED_KEYS);
      for (const { id } of due) {
        await _lockKey(client, id);
        await _applyDueRefill(client, id, now);
      }
      const { rows } = await client.query<KeyRow>(`${SELECT_KEYS} ORDER BY k.created_at, k.id`);
      return rows.map((row) => toSummary(row, now));
    });
  }

  disable(id: string, now: number): Promise<KeySummary> {
    return this.#change(id, now, "disable", (client) => _setColumns(client, id, now, { state: "disabled" }));
  }

  enable(id: string, now: number): Promise<KeySummary> {
    return this.#change(id, now, "enable", (client) => _setColumns(client, id, now, { state: "active" }));
  }

  revoke(id: string, now: number): Promise<KeySummary> {
    return this.#change(id, now, "revoke", async (client, before) => {
      if (before.state !== "revoked") await _setColumns(client, id, now, { state: "revoked" });
    }, { revoked: "allowed" });
  }

  async credit(id: string, amount: number, now: number): Promise<KeySummary> {
    checkedAmount(amount);
    return this.#change(id, now, "credit", async (client) => {
      await _addCredits(client, id, amount, "top_up", now);
      return { amount };
    });
  }

  async debit(id: string, amount: number, now: number): Promise<KeySummary> {
    checkedAmount(amount);
    return this.#change(id, now, "debit", async (client, before) => {
      await _takeCredits(client, id, amount, "debit", now, before.credits);
      return { amount };
    }, { revoked: "allowed" });
  }

  async transfer(from: string, to: string, amount: number, now: number): Promise<[KeySummary, KeySummary]> {
    checkedAmount(amount);
    if (from === to) throw new KeyManagementError(`cannot transfer credits from key "${from}" to itself`);
    return inTransaction(this.#pool, async (client): Promise<[KeySummary, KeySummary]> => {
      // Both rows locked in id order, as every batch of the readers locks them.
      for (const id of [from, to].sort()) await _lockKey(client, id);
      for (const id of [from, to]) await _applyDueRefill(client, id, now);
      const [source, target] = [await _getKey(client, from, now), await _getKey(client, to, now)];
      if (target.state === "revoked") throw revokedError("transfer credits to", to);
      await _takeCredits(client, from, amount, "transfer", now, source.credits);
      await _addCredits(client, to, amount, "transfer", now);
      const after: [KeySummary, KeySummary] = [await _getKey(client, from, now), await _getKey(client, to, now)];
      const at = new Date(now).toISOString();
      await this.#audit(client, at, "transfer", from, { before: source, after: after[0] }, { amount, to });
      await this.#audit(client, at, "transfer", to, { before: target, after: after[1] }, { amount, from });
      return after;
    });
  }

  setTier(id: string, tier: Tier, now: number): Promise<KeySummary> {
    return this.#change(id, now, "tier", (client) => _setColumns(client, id, now, { tier }), { verb: "change the tier of" });
  }

  async setScopes(id: string, scopes: readonly Scope[], now: number): Promise<KeySummary> {
    if (scopes.length === 0) throw new KeyManagementError("a key needs at least one scope");
    return this.#change(id, now, "scopes", (client) => _setColumns(client, id, now, { scopes: scopesToColumn(scopes) }), { verb: "change the scopes of" });
  }

  async reroll(id: string, graceMs: number, now: number): Promise<CreatedKey> {
    const secret = newSecret();
    const at = new Date(now).toISOString();
    const after = await this.#change(id, now, "reroll", async (client) => {
      const old = (await _run(client, KEY_SECRET, [id])).rows[0].secret_sha256 as string;
      await _run(client, FORGET_RETIRED, [at]);
      const validUntil = graceMs > 0 ? new Date(now + graceMs).toISOString() : null;
      if (validUntil !== null) await _run(client, RETIRE_SECRET, [old, id, validUntil]);
      await _run(client, SET_SECRET, [hashSecret(secret), displayPrefix(secret), at, id]);
      return { grace: formatGrace(graceMs), old_secret_valid_until: validUntil };
    }, { verb: "reroll" });
    return { ...after, key: secret };
  }

  async expire(id: string, at: number | null, now: number): Promise<KeySummary> {
    checkedExpiry(at, now);
    return this.#change(id, now, "expire", async (client) => {
      await _run(client, SET_EXPIRY, [at === null ? null : new Date(at).toISOString(), new Date(now).toISOString(), id]);
    }, { verb: "set the expiry of" });
  }

  setRefill(id: string, refill: Refill | null, now: number): Promise<KeySummary> {
    return this.#change(id, now, "refill", async (client) => {
      await _run(client, SET_REFILL, [refill?.every ?? null, refill?.to ?? null, new Date(now).toISOString(), id]);
      await _run(client, SET_REFILLED_FOR, [refill === null ? null : refillPeriod(refill.every, now), id]);
    }, { verb: "set the refill of" });
  }

  async audit(query: { keyId?: string }): Promise<AuditEntry[]> {
    const { rows } = query.keyId === undefined
      ? await this.#pool.query<AuditRow>(`${SELECT_AUDIT} ORDER BY seq`)
      : await this.#pool.query<AuditRow>(`${SELECT_AUDIT} WHERE key_id = $1 ORDER BY seq`, [query.keyId]);
    return rows.map(toAuditEntry);
  }

  async usage(query: UsageQuery): Promise<UsageRow[]> {
    const { sql, values } = usageStatement(query);
    const { rows } = await _run(this.#pool, sql, values);
    return sortedUsage(rows as UsageRow[], query.by);
  }

  async schemaVersion(): Promise<number> {
    return this.#version;
  }

  close(): Promise<void> {
    return this.#pool.end();
  }

  /** One audited change of one key in one transaction; the same steps as the SQLite store's. */
  #change(
    id: string, now: number, action: string,
    apply: (client: Query, before: KeySummary) => Promise<Record<string, unknown> | void>, rules: ChangeRules = {},
  ): Promise<KeySummary> {
    return inTransaction(this.#pool, async (client) => {
      await _lockKey(client, id);
      await _applyDueRefill(client, id, now);
      const before = await _getKey(client, id, now);
      if (before.state === "revoked" && rules.revoked !== "allowed") throw revokedError(rules.verb ?? action, id);
      const detail = (await apply(client, before)) ?? undefined;
      const after = await _getKey(client, id, now);
      await this.#audit(client, new Date(now).toISOString(), action, id, { before, after }, detail);
      return after;
    });
  }

  async #audit(client: Query, at: string, action: string, id: string, change: { before: KeySummary | null; after: KeySummary }, detail?: Record<string, unknown>): Promise<void> {
    await _run(client, INSERT_AUDIT, auditValues(at, this.#actor, action, id, change, detail));
  }
}

/** The key's state, its row locked until the transaction ends (two changes to one key queue). */
async function _lockKey(client: Query, id: string): Promise<KeyState> {
  const { rows } = await client.query<{ state: KeyState }>("SELECT state FROM keys WHERE id = $1 FOR UPDATE", [id]);
  if (rows[0] === undefined) throw unknownKeyError(id);
  return rows[0].state;
}

/** With the key's row held: its balance row taken (waiting for a reader's charge), then the refill applied if due. */
async function _applyDueRefill(client: Query, id: string, now: number): Promise<void> {
  await client.query("SELECT 1 FROM balances WHERE key_id = $1 FOR UPDATE", [id]);
  await client.query("SELECT cei_refill_due($1, $2)", [id, new Date(now).toISOString()]);
}

async function _getKey(client: Query, id: string, now: number): Promise<KeySummary> {
  const { rows } = await client.query<KeyRow>(`${SELECT_KEYS} WHERE k.id = $1`, [id]);
  if (rows[0] === undefined) throw unknownKeyError(id);
  return toSummary(rows[0], now);
}

async function _setColumns(client: Query, id: string, now: number, columns: { state?: KeyState; tier?: Tier; scopes?: string }): Promise<void> {
  await client.query(
    "UPDATE keys SET state = coalesce($1, state), tier = coalesce($2, tier), scopes = coalesce($3, scopes), updated_at = $4 WHERE id = $5",
    [columns.state ?? null, columns.tier ?? null, columns.scopes ?? null, new Date(now).toISOString(), id],
  );
}

async function _addCredits(client: Query, id: string, amount: number, kind: "top_up" | "transfer", now: number): Promise<void> {
  if ((await _run(client, ADD_CREDITS, [amount, id, amount])).rowCount === 0) throw balanceTooLargeError(kind === "top_up" ? "credit" : "transfer", amount, id);
  await _run(client, INSERT_LEDGER, [id, kind, amount, new Date(now).toISOString()]);
}

async function _takeCredits(client: Query, id: string, amount: number, kind: "debit" | "transfer", now: number, credits: number): Promise<void> {
  if ((await _run(client, TAKE_CREDITS, [amount, id, amount])).rowCount === 0) throw overdrawnError(kind, amount, id, credits);
  await _run(client, INSERT_LEDGER, [id, kind, -amount, new Date(now).toISOString()]);
}
