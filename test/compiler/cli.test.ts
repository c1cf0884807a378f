// The `cei compile` and `cei inspect` commands, run as a user runs them.
import { execFile } from "node:child_process";
import { chmodSync, cpSync, mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { promisify } from "node:util";
import { expect, onTestFinished, test } from "vitest";
import Database from "better-sqlite3";
import { inspectSnapshot } from "../../cli/inspect.ts";
import { publishedOf, publishedText } from "../../snapshot/published.ts";
import { FIXTURE_X_SECRET, fixtureDir } from "../_support/fixtures.ts";

const run = promisify(execFile);
const SECRET = "a-compile-secret-of-at-least-32-bytes";

function tempDir(prefix: string): string {
  const dir = mkdtempSync(join(tmpdir(), prefix));
  onTestFinished(() => rmSync(dir, { recursive: true, force: true }));
  return dir;
}

function privateFile(path: string, text: string): string {
  writeFileSync(path, text, { mode: 0o600 });
  chmodSync(path, 0o600);
  return path;
}
const cei = (args: string[], env: Record<string, string> = {}) =>
  run(process.execPath, ["bin/cei.js", ...args], { env: { ...process.env, ...env } }).then(
    (r) => ({ code: 0, stdout: r.stdout, stderr: r.stderr }),
    (e: { code: number; stdout: string; stderr: string }) => ({ code: e.code, stdout: e.stdout, stderr: e.stderr }),
  );

test("compile fails with every problem on stderr and exit 1; compile and inspect succeed", async () => {
  const dir = tempDir("cei-cli-");
  const out = join(dir, "snapshot.db");
  const bad = await cei(["compile", "--source", fixtureDir("errors-duplicates"), "--out", out, "--as-of", "2026-03-01T12:00:00Z"], { CEI_X_SECRET: SECRET });
  expect(bad.code).toBe(1);
  expect(bad.stderr.split("\n").slice(0, 8)).toEqual([
    'funds.jsonl:2: id: duplicate id "f1" (first on line 1)',
    'narratives.jsonl:2: id: duplicate id "n1" (first on line 1)',
    'narratives.jsonl:3: slug: duplicate slug "n-2" (first on line 2)',
    'projects.jsonl:1: features[1].feature_id: duplicate feature_id "f1" (first at features[0])',
    'projects.jsonl:2: slug: duplicate slug "p-1" (first on line 1)',
    'projects.jsonl:3: id: duplicate id "p1" (first on line 1)',
    'tokens.jsonl:2: benchmark: duplicate benchmark "btc" (first on line 1)',
    'x_accounts.jsonl:2: handle: duplicate X handle "dup_handle" (case and @ ignored): 3 records use it, on lines 1, 2, 3; keep one, linked to the one entity the account speaks for',
  ]);
  const secretFile = privateFile(join(dir, "x-secret.txt"), FIXTURE_X_SECRET + "\n");
  const good = await cei(["compile", "--source", fixtureDir("valid"), "--out", out, "--as-of", "2026-03-01T12:00:00Z", "--x-secret-file", secretFile]);
  expect(good.code).toBe(0);
  expect(good.stderr).not.toContain("…");
  const inspected = await cei(["inspect", out]);
  expect(inspected.code).toBe(0);
  const manifest = JSON.parse(inspected.stdout) as Record<string, unknown>;
  expect(manifest.compiled_at).toBeUndefined();
  expect(manifest.reference_time).toBe("2026-03-01T12:00:00.000Z");
  // What was published, per family; fixtures/valid feeds every operation, so none is "not offered".
  expect(good.stdout).toBe(`compiled ${out} (content_hash ${String(manifest.content_hash)}, reference time 2026-03-01T12:00:00.000Z (--as-of))\n` +
    `${publishedText(publishedOf(manifest))}no earlier snapshot at ${out}\n`);
  expect(good.stdout).toContain("\n  projects    7 curated, 5 written; accepted and not published: description 1, links 1, status 1,");
  expect(good.stdout).toContain("\n  trending    19 curated, ranked into the trending snapshots; accepted and not published: heat 1,");
  expect(manifest.not_offered).toEqual([]);
  expect(readFileSync(out).subarray(0, 15).toString()).toBe("SQLite format 3");
});

test("schema writes one JSON Schema per family", async () => {
  const dir = tempDir("cei-schema-");
  const result = await cei(["schema", "--out", dir]);
  expect(result.code).toBe(0);
  const projects = JSON.parse(readFileSync(join(dir, "projects.schema.json"), "utf8")) as { required: string[]; additionalProperties: boolean };
  expect(projects.required).toEqual(["id", "slug", "name"]);
  expect(projects.additionalProperties).toBe(false);
});

test("the same sources compile to the same bytes and X ids in two folders, with the secret kept in the source folder", async () => {
  const dir = tempDir("cei-cli-secret-");
  const source = join(dir, "source");
  cpSync(fixtureDir("valid"), source, { recursive: true });
  privateFile(join(source, ".cei-x-secret"), SECRET + "\n");
  const env = { CEI_X_SECRET: "" };
  const outs = [join(dir, "one", "a.db"), join(dir, "two", "a.db")];
  for (const out of outs) {
    mkdirSync(dirname(out));
    const result = await cei(["compile", "--source", source, "--out", out], env);
    expect(result.stderr).toBe("");
    expect(result.stdout).toContain("reference time 2026-03-01T11:58:00.000Z (the newest observation in the sources)");
  }
  const [a, b] = outs.map((out) => readFileSync(out));
  expect(a!.equals(b!)).toBe(true);
  const ids = outs.map((out) => {
    const db = new Database(out, { readonly: true });
    const rows = db.prepare("SELECT id FROM x_accounts ORDER BY id").pluck().all();
    db.close();
    return rows;
  });
  expect(ids[0]!.length).toBe(3);
  expect(ids[1]).toEqual(ids[0]);
});

test("--as-of without a zone is refused, and so is an observation after the reference time", async () => {
  const dir = tempDir("cei-cli-asof-");
  const out = join(dir, "s.db");
  const local = await cei(["compile", "--source", fixtureDir("valid"), "--out", out, "--as-of", "2026-03-01T12:00:00"], { CEI_X_SECRET: SECRET });
  expect(local.code).toBe(1);
  expect(local.stderr).toContain("2026-03-01T12:00:00 has no zone: add Z for UTC, or an offset such as +09:00");
  const early = await cei(["compile", "--source", fixtureDir("valid"), "--out", out, "--as-of", "2026-03-01T11:50:00+00:00"], { CEI_X_SECRET: SECRET });
  expect(early.code).toBe(1);
  expect(early.stderr).toContain("tokens.jsonl:1: market.observed_at: 2026-03-01T11:55:00.000Z is after the reference time 2026-03-01T11:50:00.000Z (--as-of)");
});

test("an X secret that others can read, a symlink, or one shorter than 32 bytes is refused with one line", async () => {
  const dir = tempDir("cei-cli-badsecret-");
  const out = join(dir, "s.db");
  const compileWith = (args: string[], env: Record<string, string> = { CEI_X_SECRET: "" }) =>
    cei(["compile", "--source", fixtureDir("valid"), "--out", out, "--as-of", "2026-03-01T12:00:00Z", ...args], env);
  const open = join(dir, "open");
  writeFileSync(open, SECRET);
  chmodSync(open, 0o644);
  const short = privateFile(join(dir, "short"), "short-secret\n");
  const link = join(dir, "link");
  symlinkSync(privateFile(join(dir, "target"), SECRET), link);
  const cases: Array<[Promise<{ code: number; stderr: string }>, string]> = [
    [compileWith(["--x-secret-file", open]), `cei compile: X secret file ${open} has mode 0644; run chmod 600 ${open}\n`],
    [compileWith(["--x-secret-file", short]), `cei compile: X secret file ${short} holds 12 bytes; an X secret needs at least 32\n`],
    [compileWith(["--x-secret-file", link]), `cei compile: X secret file ${link} is a symbolic link; name the file itself\n`],
    [compileWith([], { CEI_X_SECRET: "a" }), "cei compile: env CEI_X_SECRET is 1 bytes; an X secret needs at least 32\n"],
  ];
  for (const [result, message] of cases) expect(await result).toMatchObject({ code: 1, stderr: message });
});

test("inspect answers a missing file, a folder, a text file and an SQLite file that is not a snapshot with its own sentence", async () => {
  const dir = tempDir("cei-cli-inspect-");
  const text = join(dir, "notes.txt");
  writeFileSync(text, "not a database");
  const plain = join(dir, "plain.db");
  new Database(plain).exec("CREATE TABLE t (x)").close();
  const missing = await cei(["inspect", join(dir, "nope.db")]);
  expect(missing).toMatchObject({ code: 1, stdout: "", stderr: `cei inspect: ${join(dir, "nope.db")}: no such file\n` });
  expect(() => inspectSnapshot(dir)).toThrow(`${dir}: not a file`);
  expect(() => inspectSnapshot(text)).toThrow(`${text}: not a cei snapshot (not an SQLite database)`);
  expect(() => inspectSnapshot(plain)).toThrow(`${plain}: not a cei snapshot (no manifest with a format_version)`);
});

test("a compile that would empty a family is refused with what would change; --allow-shrink replaces the snapshot and says what changed", async () => {
  const dir = tempDir("cei-cli-shrink-");
  const out = join(dir, "snapshot.db");
  const source = join(dir, "source");
  cpSync(fixtureDir("valid"), source, { recursive: true });
  const compile = (...extra: string[]) => cei(["compile", "--source", source, "--out", out, "--as-of", "2026-03-01T12:00:00Z", ...extra], { CEI_X_SECRET: SECRET });
  expect((await compile()).code).toBe(0);
  const earlier = readFileSync(out);
  writeFileSync(join(source, "events.jsonl"), "");
  const refused = await compile();
  expect(refused).toMatchObject({ code: 1, stdout: "" });
  expect(refused.stderr).toBe([
    `${out}: (root): events would become empty (it has 4 records); --allow-shrink replaces it knowingly`,
    `what would change in ${out}:`,
    "summary",
    "  events      4 removed",
    "  manifest    18 entries changed",
    "warnings (1)",
    "  shrink: events: 4 → 0 records (−100%), more than 5%",
    `cei compile: 1 problem(s); ${out} was not written`,
    "",
  ].join("\n"));
  expect(readFileSync(out).equals(earlier)).toBe(true);
  const accepted = await compile("--allow-shrink");
  expect(accepted.code).toBe(0);
  const lines = accepted.stdout.split("\n");
  // With events.jsonl empty, no record feeds the event operation (decision 28).
  expect(lines).toContain("not offered (no curated record feeds them; they answer 404 as an unknown route): get_event");
  expect(lines.slice(-7)).toEqual([
    `against the earlier snapshot at ${out}:`, "summary", "  events      4 removed", "  manifest    18 entries changed",
    "warnings (1)", "  shrink: events: 4 → 0 records (−100%), more than 5%", "",
  ]);
  expect((await compile()).stdout.split("\n").slice(-3)).toEqual([`against the earlier snapshot at ${out}:`, "no differences", ""]);
});
