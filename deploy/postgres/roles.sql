-- PostgreSQL roles for a cei meter: run once, as a superuser (or a role with CREATEROLE that owns
-- the database), connected to the meter's database:
--
--   psql "postgres://postgres@db.internal/cei" -v ON_ERROR_STOP=1 -f deploy/postgres/roles.sql
--   psql "postgres://postgres@db.internal/cei" -c "\password cei_migrator" -c "\password cei_reader"
--
-- cei_migrator owns the meter's tables and functions: it runs `cei keys migrate` before a new
-- build starts (and the ledger's retention, docs/operations.md). cei_reader reads and writes rows
-- and nothing else: every `cei serve` and `cei keys` command connects as it. A reader on a
-- database already migrated only reads its schema version; a reader whose build needs a newer
-- schema than the database has refuses to start and says to run `cei keys migrate` as
-- cei_migrator. Safe to run again. Passwords are never written here: set them with \password.

DO $$
BEGIN
  IF NOT EXISTS (SELECT FROM pg_roles WHERE rolname = 'cei_migrator') THEN
    CREATE ROLE cei_migrator LOGIN;
  END IF;
  IF NOT EXISTS (SELECT FROM pg_roles WHERE rolname = 'cei_reader') THEN
    CREATE ROLE cei_reader LOGIN;
  END IF;
  EXECUTE format('GRANT CONNECT ON DATABASE %I TO cei_migrator, cei_reader', current_database());
END $$;

-- Before PostgreSQL 15 every role may create objects in the public schema; take that away.
REVOKE CREATE ON SCHEMA public FROM PUBLIC;
GRANT USAGE, CREATE ON SCHEMA public TO cei_migrator;
GRANT USAGE ON SCHEMA public TO cei_reader;

-- Whatever cei_migrator creates from now on (every later migration's tables and functions)...
ALTER DEFAULT PRIVILEGES FOR ROLE cei_migrator IN SCHEMA public
  GRANT SELECT, INSERT, UPDATE, DELETE ON TABLES TO cei_reader;
ALTER DEFAULT PRIVILEGES FOR ROLE cei_migrator IN SCHEMA public
  GRANT USAGE, SELECT ON SEQUENCES TO cei_reader;
ALTER DEFAULT PRIVILEGES FOR ROLE cei_migrator IN SCHEMA public
  GRANT EXECUTE ON FUNCTIONS TO cei_reader;

-- ...and what already exists, for a meter first migrated by another role (hand its tables to
-- cei_migrator with ALTER TABLE ... OWNER TO cei_migrator, or REASSIGN OWNED BY <old> TO cei_migrator).
GRANT SELECT, INSERT, UPDATE, DELETE ON ALL TABLES IN SCHEMA public TO cei_reader;
GRANT USAGE, SELECT ON ALL SEQUENCES IN SCHEMA public TO cei_reader;
GRANT EXECUTE ON ALL FUNCTIONS IN SCHEMA public TO cei_reader;
