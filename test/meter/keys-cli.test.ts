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

interface KeyJson { id: string; key?: string; prefix: string; name: string | null; tier: string; scopes: string[]; state: string; credits: number; refill?: unknown }

let dir: TempDir;
let meter: string;
let created: KeyJson;
let plain: string | undefined;
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
      code: 1, stdout: "",
      stderr: `cei keys credit: cannot credit ${Number.MAX_SAFE_INTEGER - 124} credits to key "${created.id}": its balance would pass ${Number.MAX_SAFE_INTEGER}, the largest a balance may hold\n`,
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

  it("reroll --json prints what create prints, with the new secret; the old one works through --grace", async () => {
    const rerolled = await ceiJson<KeyJson>("keys", "reroll", created.id, "--grace", "1h", "--meter", meter);
    expect(Object.keys(rerolled)).toEqual(Object.keys(created));
    expect(rerolled).toMatchObject({ id: created.id, tier: "team", scopes: ["projects", "people"], credits: 125 });
    expect(rerolled.key).not.toBe(created.key);
    const server = SqliteMeter.open(meter);
    expect([server.findKey(rerolled.key!)?.id, server.findKey(created.key!)?.graceUntil]).toEqual([created.id, expect.any(Number)]);
    server.close();
  });

  it("expire, refill, debit and transfer print the key as it now is; audit names the actor", async () => {
    const expired = await cei("keys", "expire", created.id, "2099-01-01T00:00:00+01:00", "--meter", meter);
    expect(expired).toMatchObject({ code: 0, stderr: "" });
    expect(expired.stdout).toContain("active, tier team, 125 credits, scopes projects,people, expires 2098-12-31T23:00:00.000Z");
    expect(await ceiJson<KeyJson>("keys", "refill", created.id, "--every", "month", "--to", "500", "--meter", meter)).toMatchObject({ refill: { every: "month", to: 500 } });
    expect(await ceiJson<KeyJson>("keys", "refill", created.id, "--off", "--meter", meter)).toMatchObject({ refill: null });
    expect(await ceiJson<KeyJson>("keys", "debit", created.id, "5", "--meter", meter, "--actor", "billing")).toMatchObject({ credits: 120 });
    const other = await ceiJson<KeyJson>("keys", "create", "--meter", meter, "--tier", "free", "--credits", "0");
    const moved = await cei("keys", "transfer", created.id, other.id, "20", "--meter", meter);
    expect(moved.stdout.split("\n").filter(Boolean).map((line) => line.split(":")[0])).toEqual([created.id, other.id]);
    const audit = await ceiJson<Array<{ actor: string; action: string; detail: unknown }>>("keys", "audit", "--key", created.id, "--meter", meter);
    expect(audit.find((entry) => entry.action === "debit")).toMatchObject({ actor: "billing", detail: { amount: 5 } });
    expect(audit.at(-1)).toMatchObject({ action: "transfer", detail: { amount: 20, to: other.id } });
    const text = await cei("keys", "audit", "--key", other.id, "--meter", meter);
    expect(text.stdout).toMatch(new RegExp(`  transfer  ${other.id}  amount 20; from "${created.id}"; credits 0 → 20\n$`));
  });

  it("usage: a table with a total, --csv and --json", async () => {
    const csv = await cei("keys", "usage", "--meter", meter, "--by", "key,operation", "--csv");
    expect(csv).toEqual({ code: 0, stdout: "key_id,name,operation,requests,credits\n", stderr: "" });
    expect(await ceiJson("keys", "usage", "--meter", meter, "--from", "2026-01-01", "--to", "2026-01-02T00:00:00Z")).toEqual([]);
    expect((await cei("keys", "usage", "--meter", meter)).stdout).toBe("no charged requests in this period\n");
  });

  it.each([
    [["reroll", "@id", "--grace", "1 day"], 'cei keys reroll: invalid grace "1 day" (expected 0, or a whole number with s, m, h or d such as 24h, at most 365d)'],
    [["expire", "@id", "2099-01-01T00:00:00"], 'cei keys expire: invalid moment "2099-01-01T00:00:00": expected an ISO 8601 date-time with a zone, e.g. 2026-03-01T12:00:00Z (2099-01-01T00:00:00 has no zone: add Z for UTC, or an offset such as +09:00), now or never'],
    [["expire", "@id", "2001-01-01T00:00:00Z"], 'cei keys expire: 2001-01-01T00:00:00.000Z is in the past (use "now" to end the key at once)'],
    [["refill", "@id", "--every", "week", "--to", "5"], 'cei keys refill: invalid refill schedule "week" (expected one of: day, month)'],
    [["refill", "@id", "--to", "5"], "cei keys refill: give --every day|month and --to <credits>, or --off"],
    [["refill", "@id", "--off", "--to", "5"], "cei keys refill: --off removes the refill: give it alone, without --every or --to"],
    [["debit", "@id", "1000000"], 'cei keys debit: cannot debit 1000000 credits from key "@id": its balance is 100, and a balance never goes below 0'],
    [["transfer", "@id", "@id", "1"], 'cei keys transfer: cannot transfer credits from key "@id" to itself'],
    [["usage", "--by", "month"], 'cei keys usage: invalid --by "month" (expected one or more of key, day, operation, comma-separated)'],
    [["usage", "--from", "2026-02-30"], 'cei keys usage: invalid --from "2026-02-30": 2026-02-30 is not a date-time that exists, or a date such as 2026-11-01'],
    [["usage", "--json", "--csv"], "cei keys usage: --json and --csv cannot be used together"],
    [["create", "--tier", "free", "--credits", "1", "--actor", ""], "cei keys create: an actor must be 1-200 characters"],
  ])("%j fails with one line and exit 1", async (args, message) => {
    // One key of 100 credits for every case: none of them changes it.
    plain ??= (await ceiJson<KeyJson>("keys", "create", "--meter", meter, "--tier", "free", "--credits", "100")).id;
    const id = plain;
    const run = await cei("keys", ...args.map((arg) => arg.replace("@id", id)), "--meter", meter);
    expect(run).toEqual({ code: 1, stdout: "", stderr: `${message.replaceAll("@id", id)}\n` });
  });

  it("refuses a meter file that does not exist (except for create)", async () => {
    const run = await cei("keys", "list", "--meter", dir.file("missing.db"));
    expect(run.code).toBe(1);
    expect(run.stderr).toMatch(/^cei keys list: cannot open meter file ".*missing\.db": .+\n$/);
  });

  it("--help describes every subcommand", async () => {
    const run = await cei("keys", "--help");
    expect(run.code).toBe(0);
    for (const name of ["create", "list", "disable", "enable", "revoke", "credit", "debit", "transfer", "tier", "scopes", "reroll", "expire", "refill", "audit", "usage", "migrate"]) {
      expect(run.stdout).toContain(`  ${name} `);
    }
    const reroll = await cei("keys", "reroll", "--help");
    expect(reroll.stdout).toContain("--grace <duration>");
    expect(reroll.stdout).toContain('(default: "24h")');
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
