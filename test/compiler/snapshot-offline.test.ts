// Decision 24: nothing in a compiled snapshot lets its holder confirm an X handle, even by guessing
// and hashing. Every value stored anywhere in the file (every column of every table, every manifest
// value and the strings inside it) is tried as a key for the known handles, the way the compiler
// hashes them; none may produce an entry of x_handle_index or an X account id.
import { createHash, createHmac } from "node:crypto";
import { copyFileSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import Database from "better-sqlite3";
import { afterAll, beforeAll, expect, test } from "vitest";
import { handleSearchHash, handleSearchKey, normaliseHandle, xAccountId } from "../../snapshot/x-ids.ts";
import { compileFixture, fixtureDir, FIXTURE_X_SECRET } from "../_support/fixtures.ts";

let file: string;
const handles = readFileSync(join(fixtureDir("valid"), "x_accounts.jsonl"), "utf8")
  .split("\n").filter((line) => line.trim() !== "").map((line) => normaliseHandle((JSON.parse(line) as { handle: string }).handle));
const scratch = mkdtempSync(join(tmpdir(), "cei-offline-"));

beforeAll(async () => {
  file = await compileFixture("valid");
});
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

/** Every stored value that could be a key: as stored, as text, and hex- or base64-decoded. */
function storedKeyCandidates(db: Database.Database): Buffer[] {
  const values: unknown[] = [];
  // A virtual table stores nothing of its own: the FTS5 indexes' bytes are in their shadow tables
  // (search_fts_<family>_data, _idx, _config), which are read here like any other table.
  const tables = db.prepare("SELECT name FROM sqlite_schema WHERE type = 'table' AND sql NOT LIKE 'CREATE VIRTUAL TABLE%'").pluck().all() as string[];
  for (const table of tables) {
    for (const row of db.prepare(`SELECT * FROM "${table}"`).raw().iterate() as Iterable<unknown[]>) values.push(...row);
  }
  const collect = (value: unknown): void => {
    if (typeof value === "string") values.push(value);
    else if (Array.isArray(value)) value.forEach(collect);
    else if (value !== null && typeof value === "object") Object.entries(value).forEach(([k, v]) => (collect(k), collect(v)));
  };
  for (const json of db.prepare("SELECT value FROM manifest").pluck().all() as string[]) collect(JSON.parse(json));
  const keys = new Map<string, Buffer>();
  const add = (buffer: Buffer) => keys.set(buffer.toString("base64"), buffer);
  for (const value of values) {
    if (Buffer.isBuffer(value)) add(value);
    if (typeof value !== "string" && typeof value !== "number") continue;
    const text = String(value);
    add(Buffer.from(text, "utf8"));
    if (/^(?:[0-9a-f]{2})+$/i.test(text)) add(Buffer.from(text, "hex"));
    if (/^[A-Za-z0-9+/_-]{16,}={0,2}$/.test(text)) add(Buffer.from(text, "base64"));
  }
  return [...keys.values()];
}

/** The handles that some stored value confirms, as a search key, an id key or the secret itself. */
function confirmableHandles(path: string): string[] {
  const db = new Database(path, { readonly: true });
  try {
    const indexed = new Set(db.prepare("SELECT handle_hash FROM x_handle_index").pluck().all() as string[]);
    const ids = new Set(db.prepare("SELECT id FROM x_accounts").pluck().all() as string[]);
    expect(indexed.size).toBeGreaterThan(0);
    const confirmed = new Set<string>();
    for (const key of storedKeyCandidates(db)) {
      for (const handle of handles) {
        const asSearchKey = createHmac("sha256", key).update(handle).digest("hex");
        const asSecret = key.toString("utf8");
        if (indexed.has(asSearchKey) || indexed.has(handleSearchHash(handleSearchKey(asSecret), handle)) || ids.has(xAccountId(asSecret, handle))) {
          confirmed.add(handle);
        }
      }
    }
    for (const handle of handles) {
      if (indexed.has(createHash("sha256").update(handle).digest("hex"))) confirmed.add(handle);
    }
    return [...confirmed].sort();
  } finally {
    db.close();
  }
}

test("no stored value confirms any handle of the fixtures", () => {
  expect(handles.length).toBe(4);
  expect(confirmableHandles(file)).toEqual([]);
});

test("the same check finds the handles when the search key is stored, as it was in format 2", () => {
  const leaky = join(scratch, "leaky.db");
  copyFileSync(file, leaky);
  const db = new Database(leaky);
  db.prepare("INSERT INTO manifest (key, value) VALUES ('x_handle_search_key', ?)").run(JSON.stringify(handleSearchKey(FIXTURE_X_SECRET)));
  db.close();
  // The three visible accounts are indexed; the hidden one is in no table at all.
  expect(confirmableHandles(leaky)).toEqual(["alice_onchain", "auroraswaphq", "nolink_news"]);
});

test("the manifest holds no handle-search key", () => {
  const db = new Database(file, { readonly: true });
  const keys = db.prepare("SELECT key FROM manifest").pluck().all() as string[];
  db.close();
  expect(keys.filter((key) => /x_|secret|search/.test(key))).toEqual([]);
});
