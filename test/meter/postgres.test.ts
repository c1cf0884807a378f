// The PostgreSQL meter's own guarantees, on a fresh database of the run's PostgreSQL: migrations
// applied once when several readers start at once (and by `cei keys migrate`), a newer schema
// refused, the key lifecycle through the real `cei keys` command on a postgres:// URL with the
// ledger summing to every balance, and a URL's password never printed.
import { execFile } from "node:child_process";
import { fileURLToPath } from "node:url";
import pg from "pg";
import { beforeAll, describe, expect, it } from "vitest";
import { PostgresMeter } from "../../server/meter/postgres/meter.ts";
import { newPostgresDatabase } from "../_support/meter-backends.ts";

const ROOT = fileURLToPath(new URL("../../", import.meta.url));

interface Run { code: number; stdout: string; stderr: string }

function cei(...args: string[]): Promise<Run> {
  return new Promise((resolve) => {
    execFile(process.execPath, ["bin/cei.js", ...args], { cwd: ROOT }, (error, stdout, stderr) => {
      resolve({ code: error === null ? 0 : Number(error.code ?? 1), stdout, stderr });
    });
  });
}

async function query<T>(url: string, sql: string, values: unknown[] = []): Promise<T[]> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    return (await client.query(sql, values)).rows as T[];
  } finally {
    await client.end();
  }
}

describe("migrations", () => {
  it("six readers opening a fresh database at once apply each migration exactly once", async () => {
    const url = await newPostgresDatabase();
    const meters = await Promise.all(Array.from({ length: 6 }, () => PostgresMeter.open(url)));
    await Promise.all(meters.map((meter) => meter.close()));
    expect(await query(url, "SELECT version, name FROM schema_migrations ORDER BY version")).toEqual([
      { version: 1, name: "keys_balances_rate_windows_ledger" },
      { version: 2, name: "admission_checks_scope" },
      { version: 3, name: "admission_counts_first_never_waits" },
      { version: 4, name: "key_lifecycle" },
      { version: 5, name: "narratives_scope" },
    ]);
    const run = await cei("keys", "migrate", "--meter", url);
    expect(run).toEqual({ code: 0, stdout: "meter schema at version 5\n", stderr: "" });
  });

  it("a database migrated by a newer build is refused, by the server and by cei keys", async () => {
    const url = await newPostgresDatabase();
    await (await PostgresMeter.open(url)).close();
    await query(url, "INSERT INTO schema_migrations VALUES (6, 'future', '2030-01-01T00:00:00.000Z')");
    await expect(PostgresMeter.open(url)).rejects.toThrow("meter database schema version 6 is newer than this build supports (5)");
    const run = await cei("keys", "list", "--meter", url);
    expect(run.code).toBe(1);
    expect(run.stderr).toContain("schema version 6 is newer than this build supports (5)");
  });
});

describe("cei keys on a postgres:// URL", () => {
  let url: string;
  beforeAll(async () => { url = await newPostgresDatabase(); });

  const json = async <T,>(...args: string[]): Promise<T> => {
    const run = await cei("keys", ...args, "--meter", url, "--json");
    expect(run).toMatchObject({ code: 0, stderr: "" });
    return JSON.parse(run.stdout) as T;
  };

  it("create, list, credit, tier, scopes, revoke: the rules of the SQLite meter, every credit in the ledger", async () => {
    const key = await json<{ id: string; key: string; credits: number; name: string }>("create", "--tier", "pro", "--credits", "100", "--name", "alice");
    expect(key).toMatchObject({ id: expect.stringMatching(/^key_/), key: expect.stringMatching(/^cei_/), credits: 100, name: "alice", state: "active" });
    expect(await json("credit", key.id, "25")).toMatchObject({ credits: 125 });
    expect((await cei("keys", "credit", key.id, String(Number.MAX_SAFE_INTEGER - 124), "--meter", url)).stderr).toContain("its balance would pass 9007199254740991");
    expect(await json("tier", key.id, "team")).toMatchObject({ tier: "team" });
    expect(await json("scopes", key.id, "projects,people")).toMatchObject({ scopes: ["projects", "people"] });
    const listed = await json<Array<{ id: string }>>("list");
    expect(listed.map((k) => k.id)).toEqual([key.id]);
    expect(JSON.stringify(listed)).not.toContain(key.key);

    expect(await json("revoke", key.id)).toMatchObject({ state: "revoked" });
    const refused = await cei("keys", "enable", key.id, "--meter", url);
    expect(refused).toEqual({ code: 1, stdout: "", stderr: `cei keys enable: cannot enable key "${key.id}": it is revoked, and revocation is final\n` });
    const unknown = await cei("keys", "credit", "key_nope", "5", "--meter", url);
    expect(unknown).toEqual({ code: 1, stdout: "", stderr: 'cei keys credit: no key with id "key_nope"\n' });

    const ledger = await query<{ kind: string; delta: number }>(url, "SELECT kind, delta::int FROM ledger WHERE key_id = $1 ORDER BY seq", [key.id]);
    expect(ledger).toEqual([{ kind: "top_up", delta: 100 }, { kind: "top_up", delta: 25 }]);
    expect(await query(url, "SELECT credits::int FROM balances WHERE key_id = $1", [key.id])).toEqual([{ credits: 125 }]);
  }, 30_000);

  it("reroll, expire, refill, debit, transfer, audit and usage: every change audited, by --actor", async () => {
    const a = await json<{ id: string; key: string }>("create", "--tier", "pro", "--credits", "100");
    const b = await json<{ id: string }>("create", "--tier", "free", "--credits", "0", "--expires", "2099-01-01T00:00:00Z");
    const rerolled = await json<{ id: string; key: string; credits: number }>("reroll", a.id, "--grace", "0");
    expect(rerolled).toMatchObject({ id: a.id, credits: 100 });
    expect(await json("expire", b.id, "never")).toMatchObject({ expires_at: null, state: "active" });
    expect(await json("refill", b.id, "--every", "day", "--to", "10")).toMatchObject({ refill: { every: "day", to: 10 } });
    expect(await json("debit", a.id, "40", "--actor", "billing")).toMatchObject({ credits: 60 });
    expect(await json("transfer", a.id, b.id, "60")).toMatchObject([{ id: a.id, credits: 0 }, { id: b.id, credits: 60 }]);
    const audit = await json<Array<{ actor: string; action: string; key_id: string }>>("audit");
    expect(audit.filter((entry) => entry.key_id === a.id).map((entry) => entry.action)).toEqual(["create", "reroll", "debit", "transfer"]);
    expect(audit.find((entry) => entry.action === "debit")?.actor).toBe("billing");
    const secrets = await query<{ n: number }>(url, "SELECT count(*)::int AS n FROM retired_secrets WHERE key_id = $1", [a.id]);
    expect(secrets).toEqual([{ n: 0 }]);
    const usage = await cei("keys", "usage", "--meter", url, "--by", "day", "--csv");
    expect(usage).toEqual({ code: 0, stdout: "day,requests,credits\n", stderr: "" });
    for (const id of [a.id, b.id]) {
      expect(await query(url, "SELECT coalesce(sum(delta), 0)::int AS sum FROM ledger WHERE key_id = $1", [id]))
        .toEqual(await query(url, "SELECT credits::int AS sum FROM balances WHERE key_id = $1", [id]));
    }
  }, 60_000);

  it("a database that cannot be reached is one line on stderr, without the URL's password", async () => {
    const run = await cei("keys", "list", "--meter", "postgres://cei:hunter2@127.0.0.1:1/nowhere");
    expect(run.code).toBe(1);
    expect(run.stderr).toMatch(/^cei keys list: cannot open meter database "postgres:\/\/cei:\*\*\*@127\.0\.0\.1:1\/nowhere": .+\n$/);
    expect(run.stderr).not.toContain("hunter2");
  });
});
