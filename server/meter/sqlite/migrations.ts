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
];

export const LATEST_SCHEMA_VERSION = migrations[migrations.length - 1]?.version ?? 0;

/**
 * Brings the file up to the latest version inside one `BEGIN IMMEDIATE` transaction, so that
 * several processes opening a fresh file at once apply each migration exactly once.
 */
export function applyMigrations(db: Database.Database, appliedAt: string): void {
  db.transaction(() => {
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
  }).immediate();
}
