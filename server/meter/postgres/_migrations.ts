// The PostgreSQL meter's schema, as an ordered list of migrations (the same tables as the SQLite
// file's, plus the two functions a settle batch calls). A migration is never edited once released:
// a change is a new entry at the end. `schema_migrations` records what was applied.
import type pg from "pg";
import { inTransaction } from "./pool.ts";

interface Migration { version: number; name: string; sql: string }

const migrations: readonly Migration[] = [
  {
    version: 1,
    name: "keys_balances_rate_windows_ledger",
    sql: `
      CREATE TABLE keys (
        id text PRIMARY KEY,
        secret_sha256 text NOT NULL UNIQUE,
        prefix text NOT NULL,
        name text,
        tier text NOT NULL,
        scopes text NOT NULL,
        state text NOT NULL CHECK (state IN ('active', 'disabled', 'revoked')),
        created_at text NOT NULL,
        updated_at text NOT NULL
      );
      CREATE TABLE balances (
        key_id text PRIMARY KEY REFERENCES keys(id),
        credits bigint NOT NULL CHECK (credits >= 0)
      );
      -- One fixed window per key: window_start = floor(now / window) * window, in ms since the epoch.
      CREATE TABLE rate_windows (
        key_id text PRIMARY KEY REFERENCES keys(id),
        window_start bigint NOT NULL,
        request_count integer NOT NULL
      );
      -- Every balance change: sum(delta) per key equals balances.credits.
      CREATE TABLE ledger (
        seq bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
        key_id text NOT NULL REFERENCES keys(id),
        kind text NOT NULL CHECK (kind IN ('charge', 'top_up')),
        operation text,
        delta bigint NOT NULL,
        request_id text,
        created_at text NOT NULL,
        CHECK ((kind = 'charge' AND delta <= 0 AND operation IS NOT NULL AND request_id IS NOT NULL)
            OR (kind = 'top_up' AND delta > 0))
      );
      CREATE INDEX ledger_by_key ON ledger(key_id, seq);

      -- Admission: the key's state and tier as they stand, the request counted in its window when
      -- the key is active (a window never moves backwards; one more than a window ahead, from a
      -- clock that jumped, is replaced), and the balance.
      CREATE FUNCTION cei_admit(p_key text, p_window_start bigint, p_window_ms bigint,
          OUT key_state text, OUT key_tier text, OUT balance bigint, OUT win_start bigint, OUT win_count integer)
      LANGUAGE plpgsql AS $$
      BEGIN
        SELECT k.state, k.tier INTO key_state, key_tier FROM keys k WHERE k.id = p_key;
        IF key_state = 'active' THEN
          INSERT INTO rate_windows AS w (key_id, window_start, request_count) VALUES (p_key, p_window_start, 1)
          ON CONFLICT (key_id) DO UPDATE SET
            request_count = CASE WHEN excluded.window_start > w.window_start THEN 1 ELSE w.request_count + 1 END,
            window_start = CASE WHEN w.window_start > excluded.window_start + p_window_ms THEN excluded.window_start
                                ELSE greatest(w.window_start, excluded.window_start) END
          RETURNING w.window_start, w.request_count INTO win_start, win_count;
        ELSE
          SELECT w.window_start, w.request_count INTO win_start, win_count FROM rate_windows w WHERE w.key_id = p_key;
        END IF;
        SELECT b.credits INTO balance FROM balances b WHERE b.key_id = p_key;
      END $$;

      -- The charge: the balance check and the debit are one conditional UPDATE, and its ledger row
      -- is written by the same statement's transaction.
      CREATE FUNCTION cei_charge(p_key text, p_cost bigint, p_operation text, p_request_id text, p_at text,
          OUT outcome text, OUT balance bigint)
      LANGUAGE plpgsql AS $$
      BEGIN
        IF (SELECT k.state FROM keys k WHERE k.id = p_key) IS DISTINCT FROM 'active' THEN
          outcome := 'forbidden';
        ELSE
          UPDATE balances b SET credits = b.credits - p_cost WHERE b.key_id = p_key AND b.credits >= p_cost
          RETURNING b.credits INTO balance;
          IF FOUND THEN
            INSERT INTO ledger (key_id, kind, operation, delta, request_id, created_at)
            VALUES (p_key, 'charge', p_operation, -p_cost, p_request_id, p_at);
            outcome := 'charged';
            RETURN;
          END IF;
          outcome := 'insufficient_credits';
        END IF;
        SELECT b.credits INTO balance FROM balances b WHERE b.key_id = p_key;
      END $$;
    `,
  },
  {
    version: 2,
    name: "admission_checks_scope",
    sql: `
      -- Admission with the operation's scope as it stands: a reader finds keys in its own
      -- cache, so the scope is checked here. A key that holds the scope (p_scope NULL: an operation
      -- open to every key) is admitted by cei_admit, which also serves readers of the previous
      -- version; one that does not is not counted, and its state, window and balance are read.
      CREATE FUNCTION cei_admit_scoped(p_key text, p_scope text, p_window_start bigint, p_window_ms bigint,
          OUT key_state text, OUT key_tier text, OUT in_scope boolean, OUT balance bigint, OUT win_start bigint, OUT win_count integer)
      LANGUAGE plpgsql AS $$
      BEGIN
        SELECT p_scope IS NULL OR p_scope = ANY (string_to_array(k.scopes, ',')) INTO in_scope FROM keys k WHERE k.id = p_key;
        IF in_scope THEN
          SELECT a.key_state, a.key_tier, a.balance, a.win_start, a.win_count
            INTO key_state, key_tier, balance, win_start, win_count FROM cei_admit(p_key, p_window_start, p_window_ms) a;
        ELSE
          SELECT k.state, k.tier INTO key_state, key_tier FROM keys k WHERE k.id = p_key;
          SELECT w.window_start, w.request_count INTO win_start, win_count FROM rate_windows w WHERE w.key_id = p_key;
          SELECT b.credits INTO balance FROM balances b WHERE b.key_id = p_key;
        END IF;
      END $$;
    `,
  },
  {
    version: 3,
    name: "admission_counts_first_never_waits",
    sql: `
      -- Admission in the check order of decision 27: an active key's request is counted first,
      -- whatever its route or scope; in_scope is then reported (p_scope NULL: no scope needed, or
      -- no route matched). It never waits for another transaction's lock on this key's rows: a
      -- row another transaction holds is skipped, and key_state 'busy' says so, so that one key
      -- whose rows an outside transaction locks delays no other key of the same batch; the reader
      -- tries that key again until its time bound. (Two batches of readers that hold the same key
      -- both for a few milliseconds try again rather than queue.)
      CREATE FUNCTION cei_admit_counted(p_key text, p_scope text, p_window_start bigint, p_window_ms bigint,
          OUT key_state text, OUT key_tier text, OUT in_scope boolean, OUT balance bigint, OUT win_start bigint, OUT win_count integer)
      LANGUAGE plpgsql AS $$
      BEGIN
        SELECT k.state, p_scope IS NULL OR p_scope = ANY (string_to_array(k.scopes, ','))
          INTO key_state, in_scope FROM keys k WHERE k.id = p_key;
        IF key_state = 'active' THEN
          PERFORM 1 FROM rate_windows w WHERE w.key_id = p_key FOR UPDATE SKIP LOCKED;
          IF NOT FOUND THEN
            -- No window row yet, or one locked elsewhere; a first row's insert checks the key's
            -- row (its foreign key), so that row must be free as well.
            IF EXISTS (SELECT 1 FROM rate_windows w WHERE w.key_id = p_key) THEN
              key_state := 'busy';
              RETURN;
            END IF;
            PERFORM 1 FROM keys k WHERE k.id = p_key FOR KEY SHARE SKIP LOCKED;
            IF NOT FOUND THEN
              key_state := 'busy';
              RETURN;
            END IF;
          END IF;
        END IF;
        -- The rows are this transaction's now (or the key is not active): cei_admit counts.
        SELECT a.key_state, a.key_tier, a.balance, a.win_start, a.win_count
          INTO key_state, key_tier, balance, win_start, win_count FROM cei_admit(p_key, p_window_start, p_window_ms) a;
      END $$;

      -- The charge, likewise never waiting for a lock another transaction holds on the key's
      -- balance or key row (the ledger row's foreign key checks the key's row): 'busy' instead.
      CREATE FUNCTION cei_charge_nowait(p_key text, p_cost bigint, p_operation text, p_request_id text, p_at text,
          OUT outcome text, OUT balance bigint)
      LANGUAGE plpgsql AS $$
      BEGIN
        IF (SELECT k.state FROM keys k WHERE k.id = p_key) IS DISTINCT FROM 'active' THEN
          outcome := 'forbidden';
          SELECT b.credits INTO balance FROM balances b WHERE b.key_id = p_key;
          RETURN;
        END IF;
        PERFORM 1 FROM keys k WHERE k.id = p_key FOR KEY SHARE SKIP LOCKED;
        IF NOT FOUND THEN
          outcome := 'busy';
          RETURN;
        END IF;
        SELECT b.credits INTO balance FROM balances b WHERE b.key_id = p_key FOR UPDATE SKIP LOCKED;
        IF NOT FOUND THEN
          IF EXISTS (SELECT 1 FROM balances b WHERE b.key_id = p_key) THEN
            outcome := 'busy';
          ELSE
            outcome := 'insufficient_credits';
          END IF;
          RETURN;
        END IF;
        IF balance >= p_cost THEN
          UPDATE balances b SET credits = b.credits - p_cost WHERE b.key_id = p_key RETURNING b.credits INTO balance;
          INSERT INTO ledger (key_id, kind, operation, delta, request_id, created_at)
          VALUES (p_key, 'charge', p_operation, -p_cost, p_request_id, p_at);
          outcome := 'charged';
        ELSE
          outcome := 'insufficient_credits';
        END IF;
      END $$;
    `,
  },
  {
    version: 4,
    name: "key_lifecycle",
    sql: `
      -- Decision 37: the SQLite file's migration 2, in the same column order (so that a copy of
      -- keys and balances by CSV maps column to column).
      ALTER TABLE keys ADD COLUMN expires_at text;
      ALTER TABLE keys ADD COLUMN refill_every text CHECK (refill_every IN ('day', 'month'));
      ALTER TABLE keys ADD COLUMN refill_to bigint CHECK (refill_to > 0);
      ALTER TABLE balances ADD COLUMN refilled_for text;
      CREATE TABLE retired_secrets (
        secret_sha256 text PRIMARY KEY,
        key_id text NOT NULL REFERENCES keys(id),
        valid_until text NOT NULL
      );
      CREATE TABLE audit_log (
        seq bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
        at text NOT NULL,
        actor text NOT NULL,
        action text NOT NULL,
        key_id text REFERENCES keys(id),
        detail text,
        before text,
        after text
      );
      CREATE INDEX audit_by_key ON audit_log(key_id, seq);
      ALTER TABLE ledger DROP CONSTRAINT ledger_kind_check, DROP CONSTRAINT ledger_check,
        ADD CONSTRAINT ledger_kind_check CHECK (kind IN ('charge', 'top_up', 'refill', 'debit', 'transfer')),
        ADD CONSTRAINT ledger_check CHECK ((kind = 'charge' AND delta <= 0 AND operation IS NOT NULL AND request_id IS NOT NULL)
            OR (kind IN ('top_up', 'refill') AND delta > 0)
            OR (kind = 'debit' AND delta < 0)
            OR (kind = 'transfer' AND delta <> 0));

      -- A refill that is due (the balance not yet refilled for the period p_now falls in) tops the
      -- balance up to refill_to, with a ledger row for what it adds. The balance row is taken
      -- without waiting ('busy' when another transaction holds it, or the key row the ledger's
      -- foreign key checks); once taken, the period is read again, so that however many readers
      -- race, one refills and the others find it done. A caller that holds the rows already (cei
      -- keys) is never busy.
      CREATE FUNCTION cei_refill_due(p_key text, p_now text) RETURNS text
      LANGUAGE plpgsql AS $$
      DECLARE
        v_every text; v_to bigint; v_period text; v_credits bigint; v_refilled text;
      BEGIN
        SELECT k.refill_every, k.refill_to INTO v_every, v_to FROM keys k WHERE k.id = p_key AND k.state <> 'revoked';
        IF v_every IS NULL OR v_to IS NULL THEN RETURN 'none'; END IF;
        v_period := substr(p_now, 1, CASE v_every WHEN 'day' THEN 10 ELSE 7 END);
        IF (SELECT b.refilled_for >= v_period FROM balances b WHERE b.key_id = p_key) THEN RETURN 'none'; END IF;
        PERFORM 1 FROM keys k WHERE k.id = p_key FOR KEY SHARE SKIP LOCKED;
        IF NOT FOUND THEN RETURN 'busy'; END IF;
        SELECT b.credits, b.refilled_for INTO v_credits, v_refilled FROM balances b WHERE b.key_id = p_key FOR UPDATE SKIP LOCKED;
        IF NOT FOUND THEN
          RETURN CASE WHEN EXISTS (SELECT 1 FROM balances b WHERE b.key_id = p_key) THEN 'busy' ELSE 'none' END;
        END IF;
        IF v_refilled >= v_period THEN RETURN 'none'; END IF;
        UPDATE balances b SET credits = greatest(b.credits, v_to), refilled_for = v_period WHERE b.key_id = p_key;
        IF v_credits < v_to THEN
          INSERT INTO ledger (key_id, kind, operation, delta, request_id, created_at) VALUES (p_key, 'refill', NULL, v_to - v_credits, NULL, p_now);
        END IF;
        RETURN 'refilled';
      END $$;

      -- Admission with the key's lifecycle, before cei_admit_counted counts: the secret the request
      -- was sent with must still be the key's (or a rerolled one within its grace; else 'unknown',
      -- a 401, and the reader forgets the secret); a key past its expires_at is 'expired' (not
      -- counted); a refill that is due is applied before the balance is read. p_now is the
      -- reader's clock, ISO 8601 UTC like every moment the meter stores.
      CREATE FUNCTION cei_admit_lifecycle(p_key text, p_secret text, p_scope text, p_window_start bigint, p_window_ms bigint, p_now text,
          OUT key_state text, OUT key_tier text, OUT in_scope boolean, OUT balance bigint, OUT win_start bigint, OUT win_count integer)
      LANGUAGE plpgsql AS $$
      DECLARE
        v_state text; v_secret text; v_expires text; v_refill text;
      BEGIN
        SELECT k.state, k.secret_sha256, k.expires_at, k.refill_every INTO v_state, v_secret, v_expires, v_refill FROM keys k WHERE k.id = p_key;
        IF v_secret IS DISTINCT FROM p_secret AND NOT EXISTS (
            SELECT 1 FROM retired_secrets r WHERE r.secret_sha256 = p_secret AND r.key_id = p_key AND r.valid_until > p_now) THEN
          key_state := 'unknown';
          RETURN;
        END IF;
        IF v_state <> 'revoked' AND v_expires <= p_now THEN
          key_state := 'expired';
          SELECT k.tier INTO key_tier FROM keys k WHERE k.id = p_key;
          SELECT w.window_start, w.request_count INTO win_start, win_count FROM rate_windows w WHERE w.key_id = p_key;
          SELECT b.credits INTO balance FROM balances b WHERE b.key_id = p_key;
          RETURN;
        END IF;
        IF v_state = 'active' AND v_refill IS NOT NULL AND cei_refill_due(p_key, p_now) = 'busy' THEN
          key_state := 'busy';
          RETURN;
        END IF;
        SELECT a.key_state, a.key_tier, a.in_scope, a.balance, a.win_start, a.win_count
          INTO key_state, key_tier, in_scope, balance, win_start, win_count
          FROM cei_admit_counted(p_key, p_scope, p_window_start, p_window_ms) a;
      END $$;
    `,
  },
  {
    version: 5,
    name: "narratives_scope",
    // The SQLite file's migration 3: a key that held every scope gains narratives (decision 31).
    sql: `
      UPDATE keys SET scopes = 'search,discovery,projects,funds,people,tokens,markets,stocks,news,narratives,events,x_accounts'
        WHERE scopes = 'search,discovery,projects,funds,people,tokens,markets,stocks,news,events,x_accounts';
    `,
  },
];

export const LATEST_POSTGRES_SCHEMA_VERSION = migrations[migrations.length - 1]?.version ?? 0;

/** Any constant: the advisory lock every cei process takes while it migrates this database. */
const MIGRATION_LOCK = 0x0ce1_0001;

/**
 * Brings the database up to the latest version in one transaction that first takes a
 * transaction-scoped advisory lock, so that several readers starting at once apply each migration
 * exactly once (the others wait, then find nothing left to do). Returns the versions before and after.
 * A database already at the latest version is only read, so a role without DDL rights (a reader's,
 * docs/operations.md "PostgreSQL roles") starts; one that must migrate and cannot is told how.
 */
export async function applyPostgresMigrations(pool: pg.Pool, appliedAt: string): Promise<{ from: number; to: number }> {
  const applied = await _appliedVersion(pool);
  if (applied === LATEST_POSTGRES_SCHEMA_VERSION) return { from: applied, to: applied };
  try {
    return await _migrate(pool, appliedAt);
  } catch (error) {
    if ((error as { code?: unknown }).code !== INSUFFICIENT_PRIVILEGE) throw error;
    throw new Error(
      `meter database schema version ${applied ?? 0} is older than this build's (${LATEST_POSTGRES_SCHEMA_VERSION}), ` +
        `and this role may not migrate it (${(error as Error).message}): run \`cei keys migrate\` with the migration role's URL first`,
    );
  }
}

const INSUFFICIENT_PRIVILEGE = "42501";

/** The applied version, read without DDL; undefined before the first migration. */
async function _appliedVersion(pool: pg.Pool): Promise<number | undefined> {
  const { rows: [table] } = await pool.query<{ present: boolean }>("SELECT to_regclass('schema_migrations') IS NOT NULL AS present");
  if (table?.present !== true) return undefined;
  const { rows: [applied] } = await pool.query<{ version: number | null }>("SELECT max(version) AS version FROM schema_migrations");
  return applied?.version ?? undefined;
}

function _migrate(pool: pg.Pool, appliedAt: string): Promise<{ from: number; to: number }> {
  return inTransaction(pool, async (client) => {
    await client.query("SELECT pg_advisory_xact_lock($1)", [MIGRATION_LOCK]);
    await client.query(`CREATE TABLE IF NOT EXISTS schema_migrations (
      version integer PRIMARY KEY, name text NOT NULL, applied_at text NOT NULL)`);
    const { rows } = await client.query<{ version: number | null }>("SELECT max(version) AS version FROM schema_migrations");
    const current = rows[0]?.version ?? 0;
    if (current > LATEST_POSTGRES_SCHEMA_VERSION) {
      throw new Error(`meter database schema version ${current} is newer than this build supports (${LATEST_POSTGRES_SCHEMA_VERSION})`);
    }
    for (const migration of migrations) {
      if (migration.version <= current) continue;
      await client.query(migration.sql);
      await client.query("INSERT INTO schema_migrations (version, name, applied_at) VALUES ($1, $2, $3)", [migration.version, migration.name, appliedAt]);
    }
    return { from: current, to: Math.max(current, LATEST_POSTGRES_SCHEMA_VERSION) };
  });
}
