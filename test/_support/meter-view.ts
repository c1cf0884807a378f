// The meter read through its own connection, as another process would read it (balances, the
// ledger, rate windows), whichever backend: a SQLite file path or a postgres:// URL.
import Database from "better-sqlite3";
import { isPostgresUrl } from "../../server/meter/open.ts";
import { createPool } from "../../server/meter/postgres/pool.ts";

export interface LedgerRow { key_id: string; kind: string; operation: string | null; delta: number; request_id: string | null }

/** The meter read through its own connection, as another process would read it. */
export interface MeterView {
  credits(keyId: string): Promise<number>;
  ledger(keyId?: string): Promise<LedgerRow[]>;
  /** Every balance, ledger row and rate window: equal before and after means nothing was written. */
  state(): Promise<{ balances: unknown[]; ledger: unknown[]; windows: unknown[] }>;
  close(): Promise<void>;
}

const LEDGER = "SELECT key_id, kind, operation, delta, request_id FROM ledger";

export function viewMeter(location: string): MeterView {
  if (isPostgresUrl(location)) {
    const pool = createPool(location, 1);
    const rows = async <T,>(sql: string, values: unknown[] = []) => (await pool.query(sql, values)).rows as T[];
    return {
      credits: async (keyId) => (await rows<{ credits: number }>("SELECT credits FROM balances WHERE key_id = $1", [keyId]))[0]!.credits,
      ledger: (keyId) => rows<LedgerRow>(`${LEDGER} WHERE $1::text IS NULL OR key_id = $1 ORDER BY seq`, [keyId ?? null]),
      state: async () => ({
        balances: await rows("SELECT * FROM balances ORDER BY key_id"),
        ledger: await rows("SELECT * FROM ledger ORDER BY seq"),
        windows: await rows("SELECT * FROM rate_windows ORDER BY key_id"),
      }),
      close: () => pool.end(),
    };
  }
  const db = new Database(location, { fileMustExist: true });
  const ledger = db.prepare<[string | null, string | null], LedgerRow>(`${LEDGER} WHERE ? IS NULL OR key_id = ? ORDER BY seq`);
  return {
    credits: async (keyId) => db.prepare<[string], number>("SELECT credits FROM balances WHERE key_id = ?").pluck().get(keyId)!,
    ledger: async (keyId) => ledger.all(keyId ?? null, keyId ?? null),
    state: async () => ({
      balances: db.prepare("SELECT * FROM balances ORDER BY key_id").all(),
      ledger: db.prepare("SELECT * FROM ledger ORDER BY seq").all(),
      windows: db.prepare("SELECT * FROM rate_windows ORDER BY key_id").all(),
    }),
    close: async () => void db.close(),
  };
}
