// Key management on a PostgreSQL meter: the same rules as the SQLite file's (sqlite/keys.ts,
// _key-rows.ts), each change one transaction that locks the key's row first, every credit change
// a ledger row.
import type pg from "pg";
import { scopes as allScopes, type Scope, type Tier } from "../../policy.ts";
import { scopesToColumn } from "../_columns.ts";
import { displayPrefix, hashSecret, newKeyId, newSecret } from "../secret.ts";
import { balanceTooLarge, KeyManagementError, MAX_BALANCE, type CreatedKey, type KeyStore, type KeySummary, type NewKey } from "../key-store.ts";
import { checkedName, revokedError, SELECT_KEYS, toSummary, type KeyRow } from "../_key-rows.ts";
import type { KeyState } from "../interface.ts";
import { applyPostgresMigrations } from "./_migrations.ts";
import { createPool, inTransaction } from "./pool.ts";

type Query = Pick<pg.PoolClient, "query">;

export class PostgresKeyStore implements KeyStore {
  readonly #pool: pg.Pool;
  #version = 0;

  static async open(url: string, now: () => number): Promise<PostgresKeyStore> {
    const pool = createPool(url, 1);
    try {
      const store = new PostgresKeyStore(pool);
      store.#version = (await applyPostgresMigrations(pool, new Date(now()).toISOString())).to;
      return store;
    } catch (error) {
      await pool.end();
      throw error;
    }
  }

  private constructor(pool: pg.Pool) {
    this.#pool = pool;
  }

  async create(options: NewKey, now: number): Promise<CreatedKey> {
    const name = checkedName(options.name);
    const id = newKeyId();
    const secret = newSecret();
    const at = new Date(now).toISOString();
    return inTransaction(this.#pool, async (client) => {
      await client.query(
        `INSERT INTO keys (id, secret_sha256, prefix, name, tier, scopes, state, created_at, updated_at)
         VALUES ($1, $2, $3, $4, $5, $6, 'active', $7, $7)`,
        [id, hashSecret(secret), displayPrefix(secret), name, options.tier, scopesToColumn(options.scopes ?? allScopes), at],
      );
      await client.query("INSERT INTO balances (key_id, credits) VALUES ($1, $2)", [id, options.credits]);
      if (options.credits > 0) await _recordTopUp(client, id, options.credits, at);
      return { ...(await _getKey(client, id)), key: secret };
    });
  }

  async list(): Promise<KeySummary[]> {
    const { rows } = await this.#pool.query<KeyRow>(`${SELECT_KEYS} ORDER BY k.created_at, k.id`);
    return rows.map(toSummary);
  }

  disable(id: string, now: number): Promise<KeySummary> {
    return this.#change(id, now, "disable", { state: "disabled" });
  }

  enable(id: string, now: number): Promise<KeySummary> {
    return this.#change(id, now, "enable", { state: "active" });
  }

  revoke(id: string, now: number): Promise<KeySummary> {
    return inTransaction(this.#pool, async (client) => {
      if ((await _lockKey(client, id)) !== "revoked") {
        await client.query("UPDATE keys SET state = 'revoked', updated_at = $1 WHERE id = $2", [new Date(now).toISOString(), id]);
      }
      return _getKey(client, id);
    });
  }

  async credit(id: string, amount: number, now: number): Promise<KeySummary> {
    if (!Number.isSafeInteger(amount) || amount < 1) throw new KeyManagementError(`invalid credit amount ${amount}`);
    return this.#change(id, now, "credit", {}, async (client, at) => {
      const credited = await client.query("UPDATE balances SET credits = credits + $1 WHERE key_id = $2 AND credits <= $3", [amount, id, MAX_BALANCE - amount]);
      if (credited.rowCount === 0) throw balanceTooLarge(id, amount);
      await _recordTopUp(client, id, amount, at);
    });
  }

  setTier(id: string, tier: Tier, now: number): Promise<KeySummary> {
    return this.#change(id, now, "change the tier of", { tier });
  }

  async setScopes(id: string, scopes: readonly Scope[], now: number): Promise<KeySummary> {
    if (scopes.length === 0) throw new KeyManagementError("a key needs at least one scope");
    return this.#change(id, now, "change the scopes of", { scopes: scopesToColumn(scopes) });
  }

  async schemaVersion(): Promise<number> {
    return this.#version;
  }

  close(): Promise<void> {
    return this.#pool.end();
  }

  #change(
    id: string, now: number, verb: string, columns: { state?: KeyState; tier?: Tier; scopes?: string },
    alsoDo?: (client: Query, at: string) => Promise<void>,
  ): Promise<KeySummary> {
    return inTransaction(this.#pool, async (client) => {
      if ((await _lockKey(client, id)) === "revoked") throw revokedError(verb, id);
      const at = new Date(now).toISOString();
      await client.query(
        `UPDATE keys SET state = coalesce($1, state), tier = coalesce($2, tier), scopes = coalesce($3, scopes), updated_at = $4 WHERE id = $5`,
        [columns.state ?? null, columns.tier ?? null, columns.scopes ?? null, at, id],
      );
      await alsoDo?.(client, at);
      return _getKey(client, id);
    });
  }
}

/** The key's state, its row locked until the transaction ends (two changes to one key queue). */
async function _lockKey(client: Query, id: string): Promise<KeyState> {
  const { rows } = await client.query<{ state: KeyState }>("SELECT state FROM keys WHERE id = $1 FOR UPDATE", [id]);
  if (rows[0] === undefined) throw new KeyManagementError(`no key with id "${id}"`);
  return rows[0].state;
}

async function _getKey(client: Query, id: string): Promise<KeySummary> {
  const { rows } = await client.query<KeyRow>(`${SELECT_KEYS} WHERE k.id = $1`, [id]);
  if (rows[0] === undefined) throw new KeyManagementError(`no key with id "${id}"`);
  return toSummary(rows[0]);
}

async function _recordTopUp(client: Query, id: string, amount: number, at: string): Promise<void> {
  await client.query("INSERT INTO ledger (key_id, kind, operation, delta, request_id, created_at) VALUES ($1, 'top_up', NULL, $2, NULL, $3)", [id, amount, at]);
}
