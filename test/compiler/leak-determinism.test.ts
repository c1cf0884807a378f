// Public safety and reproducibility of the compiled file.
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { expect, onTestFinished, test } from "vitest";
import { compileSnapshot } from "../../compiler/compile.ts";
import { FIXTURE_COMPILED_AT, FIXTURE_X_SECRET, compileFixture, fixtureDir } from "../_support/fixtures.ts";
import { manifestOf, openSnapshot } from "../_support/compiled-tables.ts";

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

test("without a reference time the compile derives it from the sources: no wall-clock value is written", async () => {
  const dir = mkdtempSync(join(tmpdir(), "cei-hash-"));
  onTestFinished(() => rmSync(dir, { recursive: true, force: true }));
  const compileAt = async (name: string, options: { compiledAt?: Date; now?: Date; allowStale?: boolean }) => {
    const outFile = join(dir, name);
    const result = await compileSnapshot({ sourceDir: fixtureDir("valid"), outFile, xSecret: FIXTURE_X_SECRET, ...options });
    if (!result.ok) throw new Error(result.problems.join("\n"));
    const db = openSnapshot(outFile);
    const manifest = manifestOf(db);
    db.close();
    expect(manifest).toEqual(result.manifest);
    return { manifest, bytes: readFileSync(outFile), result };
  };
  // Two compiles with different wall clocks and no --as-of: the same bytes, relative to the newest observation.
  const a = await compileAt("a.db", { now: new Date("2026-03-01T12:00:00.000Z") });
  const b = await compileAt("b.db", { now: new Date("2027-01-01T00:00:00.000Z") });
  expect(a.bytes.equals(b.bytes)).toBe(true);
  expect(a.manifest.compiled_at).toBeUndefined();
  expect(a.manifest.reference_time).toBe("2026-03-01T11:58:00.000Z");
  expect(a.result.ok && a.result.referenceTime.toISOString()).toBe("2026-03-01T11:58:00.000Z");
  // The derived time is the one an explicit --as-of at that instant gives: the same content.
  const explicit = await compileAt("c.db", { compiledAt: new Date("2026-03-01T11:58:00.000Z") });
  expect(explicit.manifest.content_hash).toBe(a.manifest.content_hash);
  // A day later the live trending, market and narrative signals are stale: a different content (accepted knowingly).
  const dayLater = await compileAt("d.db", { compiledAt: new Date(FIXTURE_COMPILED_AT.getTime() + 86_400_000), allowStale: true });
  expect(dayLater.manifest.content_hash).not.toBe(a.manifest.content_hash);
  expect(dayLater.result.ok && dayLater.result.warnings.length).toBe(4);
});
