// Public safety and reproducibility of the compiled file.
import { mkdtempSync, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { expect, test } from "vitest";
import { compileSnapshot } from "../../compiler/compile.ts";
import { FIXTURE_COMPILED_AT, FIXTURE_X_SECRET, compileFixture, fixtureDir } from "../_support/fixtures.ts";
import { manifestOf, openSnapshot } from "./_snapshot.ts";

const handles = ["AuroraSwapHQ", "alice_onchain", "nolink_news", "hidden_acct"];

test("the compiled file holds no internal field and no X handle", async () => {
  const sources = readFileSync(join(fixtureDir("valid"), "projects.jsonl"), "utf8");
  expect(sources).toContain("LEAKMARKER_");
  const bytes = readFileSync(await compileFixture("valid")).toString("latin1").toLowerCase();
  expect(bytes).not.toContain("leakmarker");
  for (const handle of handles) expect(bytes).not.toContain(handle.toLowerCase());
});

test("two compiles of the same sources and options are byte-identical", async () => {
  const a = readFileSync(await compileFixture("valid"));
  const b = readFileSync(await compileFixture("valid"));
  expect(a.equals(b)).toBe(true);
});

test("content_hash ignores compiled_at but not the data", async () => {
  const dir = mkdtempSync(join(tmpdir(), "cei-hash-"));
  const compileAt = async (name: string, compiledAt: Date): Promise<Record<string, unknown>> => {
    const outFile = join(dir, name);
    const result = await compileSnapshot({ sourceDir: fixtureDir("valid"), outFile, compiledAt, xSecret: FIXTURE_X_SECRET });
    if (!result.ok) throw new Error(result.problems.join("\n"));
    const db = openSnapshot(outFile);
    const manifest = manifestOf(db);
    db.close();
    expect(manifest).toEqual(result.manifest);
    return manifest;
  };
  const base = await compileAt("a.db", FIXTURE_COMPILED_AT);
  // One millisecond later: no record crosses a freshness threshold, so only compiled_at differs.
  const later = await compileAt("b.db", new Date(FIXTURE_COMPILED_AT.getTime() + 1));
  expect(later.compiled_at).not.toBe(base.compiled_at);
  expect(later.content_hash).toBe(base.content_hash);
  // A day later the live trending and market data are stale: a different content.
  const dayLater = await compileAt("c.db", new Date(FIXTURE_COMPILED_AT.getTime() + 86_400_000));
  expect(dayLater.content_hash).not.toBe(base.content_hash);
});
