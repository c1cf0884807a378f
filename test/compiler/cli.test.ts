// The `cei compile` and `cei inspect` commands, run as a user runs them.
import { execFile } from "node:child_process";
import { mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { promisify } from "node:util";
import { expect, test } from "vitest";
import { FIXTURE_X_SECRET, fixtureDir } from "../_support/fixtures.ts";

const run = promisify(execFile);
const cei = (args: string[], env: Record<string, string> = {}) =>
  run(process.execPath, ["bin/cei.js", ...args], { env: { ...process.env, ...env } }).then(
    (r) => ({ code: 0, stdout: r.stdout, stderr: r.stderr }),
    (e: { code: number; stdout: string; stderr: string }) => ({ code: e.code, stdout: e.stdout, stderr: e.stderr }),
  );

test("compile fails with every problem on stderr and exit 1; compile and inspect succeed", async () => {
  const dir = mkdtempSync(join(tmpdir(), "cei-cli-"));
  const out = join(dir, "snapshot.db");
  const bad = await cei(["compile", "--source", fixtureDir("errors-duplicates"), "--out", out, "--as-of", "2026-03-01T12:00:00Z"], { CEI_X_SECRET: "s" });
  expect(bad.code).toBe(1);
  expect(bad.stderr.split("\n").slice(0, 6)).toEqual([
    'funds.jsonl:2: id: duplicate id "f1" (first on line 1)',
    'projects.jsonl:1: features[1].feature_id: duplicate feature_id "f1" (first at features[0])',
    'projects.jsonl:2: slug: duplicate slug "p-1" (first on line 1)',
    'projects.jsonl:3: id: duplicate id "p1" (first on line 1)',
    'tokens.jsonl:2: benchmark: duplicate benchmark "btc" (first on line 1)',
    "x_accounts.jsonl:2: handle: duplicate X handle (first on line 1)",
  ]);
  const secretFile = join(dir, "x-secret.txt");
  writeFileSync(secretFile, FIXTURE_X_SECRET + "\n");
  const good = await cei(["compile", "--source", fixtureDir("valid"), "--out", out, "--as-of", "2026-03-01T12:00:00Z", "--x-secret-file", secretFile]);
  expect(good.code).toBe(0);
  expect(good.stderr).not.toContain("…");
  const inspected = await cei(["inspect", out]);
  expect(inspected.code).toBe(0);
  const manifest = JSON.parse(inspected.stdout) as Record<string, unknown>;
  expect(manifest.compiled_at).toBe("2026-03-01T12:00:00.000Z");
  expect(good.stdout).toBe(`compiled ${out} (content_hash ${String(manifest.content_hash)})\n`);
  expect(readFileSync(out).subarray(0, 15).toString()).toBe("SQLite format 3");
});

test("schema writes one JSON Schema per family", async () => {
  const dir = mkdtempSync(join(tmpdir(), "cei-schema-"));
  const result = await cei(["schema", "--out", dir]);
  expect(result.code).toBe(0);
  const projects = JSON.parse(readFileSync(join(dir, "projects.schema.json"), "utf8")) as { required: string[]; additionalProperties: boolean };
  expect(projects.required).toEqual(["id", "slug", "name"]);
  expect(projects.additionalProperties).toBe(false);
});

test("without --x-secret-file or CEI_X_SECRET, compile creates .cei-x-secret beside the output once and reuses it", async () => {
  const dir = mkdtempSync(join(tmpdir(), "cei-cli-secret-"));
  const env = { CEI_X_SECRET: "" };
  const args = (out: string) => ["compile", "--source", fixtureDir("valid"), "--out", join(dir, out), "--as-of", "2026-03-01T12:00:00Z"];
  const first = await cei(args("a.db"), env);
  expect(first.code).toBe(0);
  expect(first.stderr).toContain("created the X id secret");
  const secret = readFileSync(join(dir, ".cei-x-secret"), "utf8");
  expect(secret).toMatch(/^[0-9a-f]{64}\n$/);
  const second = await cei(args("b.db"), env);
  expect(second.code).toBe(0);
  expect(second.stderr).not.toContain("created the X id secret");
  expect(readFileSync(join(dir, ".cei-x-secret"), "utf8")).toBe(secret);
  // Same sources, options and (reused) secret: byte-identical, so X account ids are stable.
  expect(readFileSync(join(dir, "a.db")).equals(readFileSync(join(dir, "b.db")))).toBe(true);
});
