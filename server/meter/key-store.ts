// Key management behind one interface for both meters: `cei keys` (and the tests) open a store by
// location, a file path (SQLite) or a postgres:// URL, and every change is one transaction there.
import type { Scope, Tier } from "../policy.ts";
import { openMeterDatabase, type MeterDatabase } from "./_database.ts";
import {
  KeyManagementError, createKey, creditKey, disableKey, enableKey, listKeys, revokeKey, setKeyScopes, setKeyTier,
  type CreatedKey, type KeySummary,
} from "./keys.ts";
import { isPostgresUrl } from "./postgres/_pool.ts";
import { redactUrl } from "./postgres/_redact.ts";
import { PostgresKeyStore } from "./postgres/keys.ts";

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

/**
 * `mustExist`: a mistyped file path fails instead of starting an empty meter (a PostgreSQL
 * database must always exist already; its tables are created on first use).
 */
export async function openKeyStore(location: string, options: { mustExist: boolean; now?: () => number }): Promise<KeyStore> {
  try {
    if (isPostgresUrl(location)) return await PostgresKeyStore.open(location, options.now ?? Date.now);
    return new SqliteKeyStore(openMeterDatabase(location, { mustExist: options.mustExist, now: options.now }));
  } catch (error) {
    const message = error instanceof Error ? error.message : String(error);
    const what = isPostgresUrl(location) ? "meter database" : "meter file";
    throw new KeyManagementError(`cannot open ${what} "${redactUrl(location)}": ${message}`);
  }
}

/** The SQLite file's key functions (server/meter/keys.ts), which are synchronous, as a KeyStore. */
class SqliteKeyStore implements KeyStore {
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
