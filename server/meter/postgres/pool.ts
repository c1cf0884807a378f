// The connection pool of a PostgreSQL meter: small, bounded waits, and bigint columns read as
// JavaScript numbers (credits and window starts are safe integers, far below 2^53).
import { createRequire } from "node:module";
import pg from "pg";
import { METER_WAIT_LIMIT_MS } from "../interface.ts";

type PgPass = (connection: { host: string; port: string; database: string; user: string }, found: (password: string | undefined) => void) => void;
/**
 * libpq's password file (PGPASSFILE, else ~/.pgpass), read by the pgpass module that pg itself
 * depends on. pg reads it too, but prints a deprecation warning when it does, which would be the
 * one line on stderr that is not JSON; asked here, as pg advises, it prints nothing.
 */
const pgpass = createRequire(createRequire(import.meta.url).resolve("pg"))("pgpass") as PgPass;

/** The password of a URL that names none, from the password file; pg asks only when the server wants one. */
function _passwordFile(url: string): (() => Promise<string>) | undefined {
  const parsed = new URL(url);
  if (parsed.password !== "" || process.env.PGPASSWORD !== undefined) return undefined;
  const connection = {
    host: parsed.hostname || "localhost", port: parsed.port || "5432",
    database: decodeURIComponent(parsed.pathname.slice(1)) || decodeURIComponent(parsed.username), user: decodeURIComponent(parsed.username),
  };
  return () => new Promise((resolve) => pgpass(connection, (password) => resolve(password ?? "")));
}

const INT8_OID = 20;
/** Enough for a lookup, an admission and a charge batch in flight at once, plus a status read. */
const POOL_SIZE = 4;

const parseInt8 = (value: string): number => {
  const parsed = Number(value);
  if (!Number.isSafeInteger(parsed)) throw new Error(`meter database holds an integer beyond 2^53: ${value}`);
  return parsed;
};

/**
 * A request waits at most METER_WAIT_LIMIT_MS for a connection, and a statement runs at most that
 * long on the server: a statement cancelled there is rolled back, so a request answered 500 after
 * the wait has written nothing (a timeout on the client alone could not promise that).
 */
export function createPool(url: string, max = POOL_SIZE, onConnectionLost?: (error: Error) => void, onTlsMode?: (message: string) => void): pg.Pool {
  const tls = explicitTlsMode(url);
  if (tls.note !== undefined) (onTlsMode ?? ((message) => process.stderr.write(`cei meter: ${message}\n`)))(tls.note);
  const password = _passwordFile(url);
  const pool = new pg.Pool({
    connectionString: tls.url,
    ...(password === undefined ? {} : { password }),
    max,
    connectionTimeoutMillis: METER_WAIT_LIMIT_MS,
    statement_timeout: METER_WAIT_LIMIT_MS,
    idleTimeoutMillis: 30_000,
    application_name: "cei",
    // A peer that vanished without closing the connection is noticed by TCP keep-alive.
    keepAlive: true,
    types: { getTypeParser: ((oid: number, format?: string) => oid === INT8_OID ? parseInt8 : pg.types.getTypeParser(oid, format as "text")) as typeof pg.types.getTypeParser },
  });
  // An idle connection the server closed (restart, failover) is dropped from the pool; the next
  // query opens a new one. Without a listener the error would end the process.
  pool.on("error", onConnectionLost ?? ((error) => process.stderr.write(`cei meter: a PostgreSQL connection closed: ${error.message}\n`)));
  return pool;
}

/** `use` inside BEGIN ... COMMIT on one connection; rolled back when it throws. */
export async function inTransaction<T>(pool: pg.Pool, use: (client: pg.PoolClient) => Promise<T>): Promise<T> {
  const client = await pool.connect();
  let broken = false;
  try {
    await client.query("BEGIN");
    const result = await use(client);
    await client.query("COMMIT");
    return result;
  } catch (error) {
    // A connection that cannot even roll back is closed rather than given to the next caller.
    await client.query("ROLLBACK").catch(() => { broken = true; });
    throw error;
  } finally {
    client.release(broken);
  }
}

const VERIFIED_AS_FULL = new Set(["prefer", "require", "verify-ca"]);

/**
 * pg (8.x) verifies `sslmode=prefer`, `require` and `verify-ca` as `verify-full` (the server's
 * certificate chain and host name), unlike libpq, and prints a deprecation warning saying so,
 * which would be a line on stderr that is not JSON. The URL is given to pg with the mode it
 * applies anyway, `verify-full`, and the note says so once; `uselibpqcompat=true` (libpq's
 * meaning: `require` encrypts without verifying) is passed as it is. docs/operations.md, "TLS".
 */
export function explicitTlsMode(url: string): { url: string; note?: string } {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return { url };
  }
  const mode = parsed.searchParams.get("sslmode");
  if (mode === null || !VERIFIED_AS_FULL.has(mode) || parsed.searchParams.get("uselibpqcompat") === "true") return { url };
  parsed.searchParams.set("sslmode", "verify-full");
  return {
    url: parsed.toString(),
    note: `sslmode=${mode} is verified as sslmode=verify-full: the server's certificate must chain to a trusted CA (the system's, or sslrootcert=<file>) and name the host; write sslmode=verify-full to say so, or uselibpqcompat=true&sslmode=${mode} for libpq's meaning`,
  };
}
