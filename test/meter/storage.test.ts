import Database from "better-sqlite3";
import { createHash } from "node:crypto";
import { existsSync, readFileSync } from "node:fs";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { openMeterDatabase } from "../../server/meter/sqlite/database.ts";
import { LATEST_SCHEMA_VERSION, migrations } from "../../server/meter/sqlite/migrations.ts";
import { SqliteMeter } from "../../server/meter/sqlite/meter.ts";
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
