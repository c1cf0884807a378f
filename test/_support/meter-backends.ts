// The two meters every metering suite runs against: a SQLite file in a temp folder, and a
// database of its own in the run's PostgreSQL (test/_support/postgres-global.ts), dropped after
// the test file.
import { randomBytes } from "node:crypto";
import { join } from "node:path";
import pg from "pg";
import { afterAll, inject } from "vitest";
import { testTempDir } from "./temp.ts";

export const meterBackends = ["sqlite", "postgres"] as const;
export type MeterBackend = (typeof meterBackends)[number];

const created: string[] = [];

afterAll(async () => {
  if (created.length === 0) return;
  await withAdmin(async (client) => {
    // FORCE: a child process killed by a test may leave a connection behind for a moment.
    for (const name of created.splice(0)) await client.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
  });
});

async function withAdmin<T>(use: (client: pg.Client) => Promise<T>): Promise<T> {
  const client = new pg.Client({ connectionString: inject("postgresAdminUrl") });
  await client.connect();
  try {
    return await use(client);
  } finally {
    await client.end();
  }
}

/** A new, empty PostgreSQL database for this test file; its URL. */
export async function newPostgresDatabase(): Promise<string> {
  const name = `cei_test_${randomBytes(6).toString("hex")}`;
  await withAdmin((client) => client.query(`CREATE DATABASE ${name}`));
  created.push(name);
  const url = new URL(inject("postgresAdminUrl"));
  url.pathname = `/${name}`;
  return url.toString();
}

/** Where a new meter lives: a file path for SQLite, a fresh database's URL for PostgreSQL. */
export async function newMeterLocation(backend: MeterBackend): Promise<string> {
  return backend === "sqlite" ? join(testTempDir("cei-meter-"), "meter.db") : newPostgresDatabase();
}
