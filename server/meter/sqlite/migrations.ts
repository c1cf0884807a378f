// The meter file's schema, as an ordered list of migrations. A migration is never edited once
// released: a change is a new entry at the end. `schema_migrations` records what was applied.
import type Database from "better-sqlite3";

export interface Migration {
  version: number;
  name: string;
  sql: string;
}

export const migrations: readonly Migration[] = [
  {
    version: 1,
    name: "keys_balances_rate_windows_ledger",
    sql: `
      CREATE TABLE keys (
        id TEXT PRIMARY KEY,
        secret_sha256 TEXT NOT NULL UNIQUE,
        prefix TEXT NOT NULL,
        name TEXT,
        tier TEXT NOT NULL,
        scopes TEXT NOT NULL,
        state TEXT NOT NULL CHECK (state IN ('active', 'disabled', 'revoked')),
        created_at TEXT NOT NULL,
        updated_at TEXT NOT NULL
      ) STRICT;

      CREATE TABLE balances (
        key_id TEXT PRIMARY KEY REFERENCES keys(id),
        credits INTEGER NOT NULL CHECK (credits >= 0)
      ) STRICT;

      -- One fixed window per key: window_start = floor(now / RATE_WINDOW_MS) * RATE_WINDOW_MS.
      CREATE TABLE rate_windows (
        key_id TEXT PRIMARY KEY REFERENCES keys(id),
        window_start INTEGER NOT NULL,
        request_count INTEGER NOT NULL
      ) STRICT;

      -- Every balance change: sum(delta) per key equals balances.credits.
      CREATE TABLE ledger (
        seq INTEGER PRIMARY KEY AUTOINCREMENT,
        key_id TEXT NOT NULL REFERENCES keys(id),
        kind TEXT NOT NULL CHECK (kind IN ('charge', 'top_up')),
        operation TEXT,
        delta INTEGER NOT NULL,
        request_id TEXT,
        created_at TEXT NOT NULL,
        CHECK ((kind = 'charge' AND delta <= 0 AND operation IS NOT NULL AND request_id IS NOT NULL)
            OR (kind = 'top_up' AND delta > 0))
      ) STRICT;
      CREATE INDEX ledger_by_key ON ledger(key_id, seq);
    `,
  },
  {
    version: 2,
    name: "key_lifecycle",
    // Decision 37. The ledger takes three more kinds (refill, debit, transfer): SQLite cannot change
    // a CHECK in place, so the table is rebuilt, rows and sequence kept.
    sql: `
      ALTER TABLE keys ADD COLUMN expires_at TEXT;
      ALTER TABLE keys ADD COLUMN refill_every TEXT CHECK (refill_every IN ('day', 'month'));
      ALTER TABLE keys ADD COLUMN refill_to INTEGER CHECK (refill_to > 0);
      -- The refill period (UTC day or month) the balance was last topped up for.
      ALTER TABLE balances ADD COLUMN refilled_for TEXT;

      -- Secrets replaced by a reroll, accepted until valid_until.
      CREATE TABLE retired_secrets (
        secret_sha256 TEXT PRIMARY KEY,
        key_id TEXT NOT NULL REFERENCES keys(id),
        valid_until TEXT NOT NULL
      ) STRICT;

      -- Every admin action: who, what, when; detail holds its arguments, before and after the
      -- fields of the key it changed (JSON text).
      CREATE TABLE audit_log (
        seq INTEGER PRIMARY KEY AUTOINCREMENT,
        at TEXT NOT NULL,
        actor TEXT NOT NULL,
        action TEXT NOT NULL,
        key_id TEXT REFERENCES keys(id),
        detail TEXT,
        before TEXT,
        after TEXT
      ) STRICT;
      CREATE INDEX audit_by_key ON audit_log(key_id, seq);

      CREATE TABLE ledger_v2 (
        seq INTEGER PRIMARY KEY AUTOINCREMENT,
        key_id TEXT NOT NULL REFERENCES keys(id),
        kind TEXT NOT NULL CHECK (kind IN ('charge', 'top_up', 'refill', 'debit', 'transfer')),
        operation TEXT,
        delta INTEGER NOT NULL,
        request_id TEXT,
        created_at TEXT NOT NULL,
        CHECK ((kind = 'charge' AND delta <= 0 AND operation IS NOT NULL AND request_id IS NOT NULL)
            OR (kind IN ('top_up', 'refill') AND delta > 0)
            OR (kind = 'debit' AND delta < 0)
            OR (kind = 'transfer' AND delta <> 0))
      ) STRICT;
      INSERT INTO ledger_v2 (seq, key_id, kind, operation, delta, request_id, created_at)
        SELECT seq, key_id, kind, operation, delta, request_id, created_at FROM ledger;
      DROP TABLE ledger;
      ALTER TABLE ledger_v2 RENAME TO ledger;
      CREATE INDEX ledger_by_key ON ledger(key_id, seq);
    `,
  },
  {
    version: 3,
    name: "narratives_scope",
    // Decision 31 adds the scope narratives. A key that held every scope was made with all of them
    // (decision 8) and keeps all of them; a key limited to some stays as it was.
    sql: `
      UPDATE keys SET scopes = 'search,discovery,projects,funds,people,tokens,markets,stocks,news,narratives,events,x_accounts'
        WHERE scopes = 'search,discovery,projects,funds,people,tokens,markets,stocks,news,events,x_accounts';
    `,
  },
];

export const LATEST_SCHEMA_VERSION = migrations[migrations.length - 1]?.version ?? 0;

/**
 * Brings the file up to the latest version inside one `BEGIN IMMEDIATE` transaction, so that
 * several processes opening a fresh file at once apply each migration exactly once. Returns the
 * versions before and after.
 */
export function applyMigrations(db: Database.Database, appliedAt: string): { from: number; to: number } {
  return db.transaction(() => {
    db.exec(`CREATE TABLE IF NOT EXISTS schema_migrations (
      version INTEGER PRIMARY KEY, name TEXT NOT NULL, applied_at TEXT NOT NULL) STRICT`);
    const row = db.prepare("SELECT max(version) AS version FROM schema_migrations").get() as {
      version: number | null;
    };
    const current = row.version ?? 0;
    if (current > LATEST_SCHEMA_VERSION) {
      throw new Error(
        `meter file schema version ${current} is newer than this build supports (${LATEST_SCHEMA_VERSION})`,
      );
    }
    const record = db.prepare("INSERT INTO schema_migrations (version, name, applied_at) VALUES (?, ?, ?)");
    for (const migration of migrations) {
      if (migration.version <= current) continue;
      db.exec(migration.sql);
      record.run(migration.version, migration.name, appliedAt);
    }
    return { from: current, to: Math.max(current, LATEST_SCHEMA_VERSION) };
  }).immediate();
}
