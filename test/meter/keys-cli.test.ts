// Key lifecycle through the real command: `node bin/cei.js keys ...` on a temporary meter file.
import { execFile } from "node:child_process";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { SqliteMeter } from "../../server/meter/sqlite/meter.ts";
import { scopes as allScopes } from "../../server/policy.ts";
import { inspect, tempDir, type TempDir } from "./_helpers.ts";

const ROOT = fileURLToPath(new URL("../../", import.meta.url));

interface Run { code: number; stdout: string; stderr: string }

function cei(...args: string[]): Promise<Run> {
  return new Promise((resolve) => {
    execFile(process.execPath, ["bin/cei.js", ...args], { cwd: ROOT }, (error, stdout, stderr) => {
      resolve({ code: error === null ? 0 : Number(error.code ?? 1), stdout, stderr });
    });
  });
}

async function ceiJson<T>(...args: string[]): Promise<T> {
  const run = await cei(...args, "--json");
  expect(run).toMatchObject({ code: 0, stderr: "" });
  return JSON.parse(run.stdout) as T;
}

interface KeyJson { id: string; key?: string; prefix: string; name: string | null; tier: string; scopes: string[]; state: string; credits: number }

let dir: TempDir;
let meter: string;
let created: KeyJson;
beforeAll(async () => {
  dir = tempDir();
  meter = dir.file("meter.db");
  created = await ceiJson<KeyJson>("keys", "create", "--meter", meter, "--tier", "pro", "--credits", "100", "--name", "alice");
});
afterAll(() => dir.remove());

describe("cei keys", () => {
  it("create --json prints the key once, with id, prefix, tier, all scopes, credits and name", async () => {
    expect(created).toMatchObject({ id: expect.stringMatching(/^key_/), tier: "pro", scopes: [...allScopes], state: "active", credits: 100, name: "alice" });
    expect(created.key).toMatch(/^cei_[0-9A-Za-z]{40}$/);
    expect(created.key!.startsWith(created.prefix)).toBe(true);
    const server = SqliteMeter.open(meter);
    expect(server.findKey(created.key!)).toMatchObject({ id: created.id, tier: "pro", state: "active" });
    server.close();
  });

  it("create with named scopes; list shows every key and never a secret", async () => {
    const narrow = await ceiJson<KeyJson>("keys", "create", "--meter", meter, "--tier", "free", "--credits", "0", "--scopes", "news,search");
    expect(narrow).toMatchObject({ scopes: ["search", "news"], credits: 0, name: null });
    const listed = await ceiJson<KeyJson[]>("keys", "list", "--meter", meter);
    expect(listed.map((key) => key.id)).toEqual([created.id, narrow.id]);
    const text = await cei("keys", "list", "--meter", meter);
    for (const output of [JSON.stringify(listed), text.stdout]) {
      expect(output).not.toContain(created.key);
      expect(output).not.toContain(narrow.key);
    }
    expect(text.stdout).toContain(created.id);
  });

  it("disable, enable, credit (with a ledger row), tier, scopes", async () => {
    expect(await ceiJson<KeyJson>("keys", "disable", created.id, "--meter", meter)).toMatchObject({ state: "disabled" });
    expect(await ceiJson<KeyJson>("keys", "enable", created.id, "--meter", meter)).toMatchObject({ state: "active" });
    expect(await ceiJson<KeyJson>("keys", "credit", created.id, "25", "--meter", meter)).toMatchObject({ credits: 125 });
    // A balance stays a safe integer (the contract's bound of credits_remaining): refused, nothing written.
    expect(await cei("keys", "credit", created.id, String(Number.MAX_SAFE_INTEGER - 124), "--meter", meter)).toEqual({
      code: 1, stdout: "", stderr: `cei keys credit: crediting ${Number.MAX_SAFE_INTEGER - 124} would take the balance of key ${created.id} past ${Number.MAX_SAFE_INTEGER} credits\n`,
    });
    expect(await ceiJson<KeyJson>("keys", "tier", created.id, "team", "--meter", meter)).toMatchObject({ tier: "team" });
    expect(await ceiJson<KeyJson>("keys", "scopes", created.id, "projects,people", "--meter", meter)).toMatchObject({ scopes: ["projects", "people"] });
    const view = inspect(meter);
    expect(view.ledger(created.id)).toEqual([
      { kind: "top_up", operation: null, delta: 100, request_id: null },
      { kind: "top_up", operation: null, delta: 25, request_id: null },
    ]);
    expect(view.ledgerSum(created.id)).toBe(view.credits(created.id));
    view.close();
  });

  it("revoke is final: enable, credit and tier changes fail afterwards", async () => {
    const other = await ceiJson<KeyJson>("keys", "create", "--meter", meter, "--tier", "free", "--credits", "5");
    expect(await ceiJson<KeyJson>("keys", "revoke", other.id, "--meter", meter)).toMatchObject({ state: "revoked" });
    for (const args of [["enable", other.id], ["credit", other.id, "5"], ["tier", other.id, "pro"]]) {
      const run = await cei("keys", ...args, "--meter", meter);
      expect(run).toMatchObject({ code: 1, stdout: "" });
      expect(run.stderr).toBe(`cei keys ${args[0]}: cannot ${args[0] === "tier" ? "change the tier of" : args[0]} key "${other.id}": it is revoked, and revocation is final\n`);
    }
  });

  it.each([
    [["disable", "key_nope"], 'cei keys disable: no key with id "key_nope"'],
    [["credit", "key_nope", "5"], 'cei keys credit: no key with id "key_nope"'],
    [["credit", "@id", "0"], 'cei keys credit: invalid credit amount "0" (expected a whole number >= 1)'],
    [["credit", "@id", "1.5"], 'cei keys credit: invalid credit amount "1.5" (expected a whole number >= 1)'],
    [["tier", "@id", "gold"], 'cei keys tier: unknown tier "gold" (expected one of: free, pro, pro_plus, team, internal)'],
    [["scopes", "@id", "search,bogus"], `cei keys scopes: unknown scope(s) "bogus" (expected: ${allScopes.join(", ")})`],
    [["create", "--tier", "free", "--credits", "-1"], 'cei keys create: invalid credit amount "-1" (expected a whole number >= 0)'],
  ])("%j fails with one line and exit 1", async (args, message) => {
    const run = await cei("keys", ...args.map((arg) => (arg === "@id" ? created.id : arg)), "--meter", meter);
    expect(run).toEqual({ code: 1, stdout: "", stderr: `${message}\n` });
  });

  it("refuses a meter file that does not exist (except for create)", async () => {
    const run = await cei("keys", "list", "--meter", dir.file("missing.db"));
    expect(run.code).toBe(1);
    expect(run.stderr).toMatch(/^cei keys list: cannot open meter file ".*missing\.db": .+\n$/);
  });

  it("--help describes every subcommand", async () => {
    const run = await cei("keys", "--help");
    expect(run.code).toBe(0);
    for (const name of ["create", "list", "disable", "enable", "revoke", "credit", "tier", "scopes", "migrate"]) {
      expect(run.stdout).toContain(name);
    }
  });
});

describe("cei keys list with a hostile name", () => {
  it("escapes control and bidi characters, quotes and backslashes in the name", async () => {
    const name = 'evil\u202Eeman\u001B[2J"\\';
    await ceiJson<KeyJson>("keys", "create", "--meter", meter, "--tier", "free", "--credits", "1", "--name", name);
    const listed = await cei("keys", "list", "--meter", meter);
    expect(listed.code).toBe(0);
    expect(listed.stdout).toContain(String.raw`name "evil\u{202E}eman\u{001B}[2J\"\\"`);
    expect(listed.stdout).not.toMatch(/[\u0000-\u0009\u000B-\u001F\u202A-\u202E\u2066-\u2069]/);
  });
});
