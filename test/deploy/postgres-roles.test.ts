// The kit's PostgreSQL roles (deploy/postgres/roles.sql) on a real PostgreSQL: cei_migrator migrates
// the meter with `cei keys migrate`; cei_reader, which may not create anything, then runs `cei keys`
// and a reader's meter (start-up reads the schema version only), and a reader whose build needs a
// schema the database does not have yet refuses to start and says how to migrate.
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import pg from "pg";
import { afterAll, beforeAll, expect, it } from "vitest";
import { openMeter } from "../../server/meter/open.ts";
import { newPostgresDatabase } from "../_support/meter-backends.ts";
import { cei, REPO_ROOT } from "../_support/processes.ts";
import { testTempDir } from "../_support/temp.ts";

async function withEnv<T>(values: Record<string, string>, use: () => Promise<T>): Promise<T> {
  const saved = Object.fromEntries(Object.keys(values).map((name) => [name, process.env[name]]));
  Object.assign(process.env, values);
  try {
    return await use();
  } finally {
    for (const [name, value] of Object.entries(saved)) {
      if (value === undefined) delete process.env[name];
      else process.env[name] = value;
    }
  }
}

const ROLES_SQL = readFileSync(`${REPO_ROOT}/deploy/postgres/roles.sql`, "utf8");
const PASSWORD = "cei-roles-test";

let adminUrl: string;
let admin: pg.Client;
const as = (role: string) => {
  const url = new URL(adminUrl);
  url.username = role;
  url.password = PASSWORD;
  return url.toString();
};

beforeAll(async () => {
  adminUrl = await newPostgresDatabase();
  admin = new pg.Client({ connectionString: adminUrl });
  await admin.connect();
  // Twice: the file may be run again (a new database, a later build).
  await admin.query(ROLES_SQL);
  await admin.query(ROLES_SQL);
  for (const role of ["cei_migrator", "cei_reader"]) await admin.query(`ALTER ROLE ${role} PASSWORD '${PASSWORD}'`);
});
afterAll(async () => {
  await admin?.end();
});

it("the migration role migrates; the reader role, without DDL, runs cei keys and a reader; a reader never migrates", async () => {
  const reader = as("cei_reader");
  // Nothing migrated yet: a reader cannot create the tables, and says what to run.
  await expect(openMeter(reader)).rejects.toThrow(/schema version 0 is older than this build's \(\d+\), and this role may not migrate it \(permission denied for schema public\): run `cei keys migrate` with the migration role's URL first/);

  expect(await cei(["keys", "migrate", "--meter", as("cei_migrator")])).toMatch(/version/);
  // The password from a libpq password file (as the kit's systemd unit gives it), not the URL.
  const url = new URL(reader);
  const passfile = join(testTempDir("cei-pgpass-"), "pgpass");
  writeFileSync(passfile, `${url.hostname}:${url.port}:${url.pathname.slice(1)}:cei_reader:${PASSWORD}\n`, { mode: 0o600 });
  url.password = "";
  const created = await withEnv({ PGPASSFILE: passfile }, async () =>
    JSON.parse(await cei(["keys", "create", "--meter", url.toString(), "--tier", "pro", "--credits", "5", "--json"])) as { id: string; key: string });

  const meter = await openMeter(reader);
  try {
    const key = (await meter.findKey(created.key))!;
    const settled = await meter.settle({ key, operation: "get_project", requestId: "req_roles_test_1", work: () => ({ value: "ok", cost: 1 }) });
    expect(settled).toMatchObject({ outcome: "answered", charge: { result: "charged", credits_remaining: 4 } });
    expect(await meter.reachable()).toBe(true);
  } finally {
    await meter.close();
  }

  const asReader = new pg.Client({ connectionString: reader });
  await asReader.connect();
  try {
    await expect(asReader.query("CREATE TABLE intruder (id int)")).rejects.toThrow(/permission denied for schema public/);
    await expect(asReader.query("DROP TABLE ledger")).rejects.toThrow(/must be owner of table ledger/);
    await expect(asReader.query("ALTER TABLE keys ADD COLUMN x int")).rejects.toThrow(/must be owner of table keys/);
  } finally {
    await asReader.end();
  }
  const { rows } = await admin.query<{ owner: string }>("SELECT DISTINCT tableowner AS owner FROM pg_tables WHERE schemaname = 'public'");
  expect(rows).toEqual([{ owner: "cei_migrator" }]);

  // A build newer than the database (its last migration not applied yet): the reader refuses to start.
  const { rows: [last] } = await admin.query<{ version: number; name: string; applied_at: string }>("SELECT * FROM schema_migrations ORDER BY version DESC LIMIT 1");
  await admin.query("DELETE FROM schema_migrations WHERE version = $1", [last!.version]);
  try {
    await expect(openMeter(reader)).rejects.toThrow(new RegExp(`schema version ${last!.version - 1} is older than this build's \\(${last!.version}\\).*run \`cei keys migrate\``));
  } finally {
    await admin.query("INSERT INTO schema_migrations VALUES ($1, $2, $3)", [last!.version, last!.name, last!.applied_at]);
  }
}, 60_000);
