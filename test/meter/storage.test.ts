import Database from "better-sqlite3";
import { createHash } from "node:crypto";
import { chmodSync, existsSync, readFileSync } from "node:fs";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { openMeterDatabase } from "../../server/meter/sqlite/database.ts";
import { LATEST_SCHEMA_VERSION, migrations } from "../../server/meter/sqlite/migrations.ts";
import { SqliteMeter } from "../../server/meter/sqlite/meter.ts";
import { scopes } from "../../server/policy.ts";
import { openKeyStore } from "../../server/meter/open.ts";
import { T0, issueKey, tempDir, type TempDir } from "./_helpers.ts";

let dir: TempDir;
let file: string;
beforeEach(() => {
  dir = tempDir();
  file = dir.file("meter.db");
});
afterEach(() => dir.remove());

function fileBytes(): Buffer {
  return Buffer.concat([file, `${file}-wal`, `${file}-shm`].filter(existsSync).map((path) => readFileSync(path)));
}

describe("secrets at rest", () => {
  it("the meter file (with its -wal) holds the sha256 of a key, never the key", () => {
    const meter = SqliteMeter.open(file); // keeps the WAL in place while the key is written
    const { key } = issueKey(file, { credits: 1 });
    const bytes = fileBytes();
    expect(existsSync(`${file}-wal`)).toBe(true);
    expect(bytes.includes(createHash("sha256").update(key).digest("hex"))).toBe(true);
    expect(bytes.includes(key)).toBe(false);
    expect(bytes.includes(key.slice(10))).toBe(false);
    meter.close();
    expect(fileBytes().includes(key.slice(10))).toBe(false);
  });
});

describe("migrations", () => {
  function appliedVersions(): Array<{ version: number; name: string; applied_at: string }> {
    const db = new Database(file, { readonly: true });
    try {
      return db.prepare("SELECT version, name, applied_at FROM schema_migrations ORDER BY version").all() as never;
    } finally {
      db.close();
    }
  }

  it("are applied in order on open, once, and are idempotent on reopen", () => {
    openMeterDatabase(file, { now: () => T0 }).close();
    const expected = migrations.map(({ version, name }) => ({ version, name, applied_at: "2026-11-21T18:29:10.250Z" }));
    expect(appliedVersions()).toEqual(expected);
    expect(migrations.map((m) => m.version)).toEqual(migrations.map((_, index) => index + 1));

    const { id } = issueKey(file, { credits: 7 });
    openMeterDatabase(file, { now: () => T0 + 60_000 }).close();
    expect(appliedVersions()).toEqual(expected);
    const db = openMeterDatabase(file);
    expect(db.prepare("SELECT credits FROM balances WHERE key_id = ?").pluck().get(id)).toBe(7);
    db.close();
  });

  it("upgrade a file of the first version in place: keys, balances and the ledger kept, its sequence continued, and audited", async () => {
    const old = new Database(file);
    old.exec(migrations[0]!.sql);
    old.exec("CREATE TABLE schema_migrations (version INTEGER PRIMARY KEY, name TEXT NOT NULL, applied_at TEXT NOT NULL) STRICT");
    old.prepare("INSERT INTO schema_migrations VALUES (1, ?, 'x')").run(migrations[0]!.name);
    old.exec(`INSERT INTO keys VALUES ('key_old', 'h', 'cei_abcdef', NULL, 'free', 'search', 'active', 'x', 'x');
              INSERT INTO balances VALUES ('key_old', 4);
              INSERT INTO ledger (key_id, kind, operation, delta, request_id, created_at) VALUES
                ('key_old', 'top_up', NULL, 5, NULL, 'x'), ('key_old', 'charge', 'get_news', -1, 'req_1', 'x')`);
    old.close();
    chmodSync(file, 0o600);

    const store = await openKeyStore(file, { mustExist: true, now: () => T0, actor: "ops" });
    expect(await store.schemaVersion()).toBe(LATEST_SCHEMA_VERSION);
    expect(await store.debit("key_old", 4, T0)).toMatchObject({ credits: 0, expires_at: null, refill: null, last_used_at: null });
    expect((await store.audit({})).map(({ action, key_id, before, after }) => ({ action, key_id, before, after }))).toEqual([
      { action: "migrate", key_id: null, before: { schema_version: 1 }, after: { schema_version: LATEST_SCHEMA_VERSION } },
      { action: "debit", key_id: "key_old", before: { credits: 4 }, after: { credits: 0 } },
    ]);
    await store.close();
    const db = new Database(file, { readonly: true });
    expect(db.prepare("SELECT seq, kind, delta FROM ledger ORDER BY seq").all()).toEqual([
      { seq: 1, kind: "top_up", delta: 5 }, { seq: 2, kind: "charge", delta: -1 }, { seq: 3, kind: "debit", delta: -4 },
    ]);
    db.close();
  });

  it("a key that held every scope gains narratives; a key limited to some keeps its own (decision 31)", () => {
    const old = new Database(file);
    for (const migration of migrations.slice(0, 2)) old.exec(migration.sql);
    old.exec("CREATE TABLE schema_migrations (version INTEGER PRIMARY KEY, name TEXT NOT NULL, applied_at TEXT NOT NULL) STRICT");
    for (const migration of migrations.slice(0, 2)) old.prepare("INSERT INTO schema_migrations VALUES (?, ?, 'x')").run(migration.version, migration.name);
    old.exec(`INSERT INTO keys (id, secret_sha256, prefix, name, tier, scopes, state, created_at, updated_at) VALUES
      ('key_all', 'h1', 'cei_a', NULL, 'pro', 'search,discovery,projects,funds,people,tokens,markets,stocks,news,events,x_accounts', 'active', 'x', 'x'),
      ('key_some', 'h2', 'cei_b', NULL, 'pro', 'search,news', 'active', 'x', 'x')`);
    old.close();
    const db = openMeterDatabase(file, { now: () => T0 });
    expect(db.prepare("SELECT id, scopes FROM keys ORDER BY id").all()).toEqual([
      // Stored comma-separated in the policy's order.
      { id: "key_all", scopes: scopes.join(",") },
      { id: "key_some", scopes: "search,news" },
    ]);
    db.close();
  });

  it("runs with WAL, NORMAL synchronous by default and FULL on request", () => {
    for (const [option, level] of [[undefined, 1], ["FULL", 2], ["NORMAL", 1]] as const) {
      const db = openMeterDatabase(file, { synchronous: option });
      expect(db.pragma("journal_mode", { simple: true })).toBe("wal");
      expect(db.pragma("synchronous", { simple: true })).toBe(level);
      db.close();
    }
  });

  it("refuses a file written by a newer schema", () => {
    openMeterDatabase(file).close();
    const db = new Database(file);
    db.prepare("INSERT INTO schema_migrations VALUES (?, 'future', 'x')").run(LATEST_SCHEMA_VERSION + 1);
    db.close();
    expect(() => SqliteMeter.open(file)).toThrow(`meter file schema version ${LATEST_SCHEMA_VERSION + 1} is newer than this build supports (${LATEST_SCHEMA_VERSION})`);
  });
});
