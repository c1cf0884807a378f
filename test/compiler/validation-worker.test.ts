// Large inputs are validated on a worker thread; the result must not depend on where it ran.
import { mkdtempSync, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { expect, test } from "vitest";
import { compileSnapshot, type CompileResult } from "../../compiler/compile.ts";
import { FIXTURE_COMPILED_AT, FIXTURE_X_SECRET, fixtureDir } from "../_support/fixtures.ts";

const dir = mkdtempSync(join(tmpdir(), "cei-worker-"));

function compile(fixture: string, validateOnWorker: boolean): Promise<CompileResult> {
  return compileSnapshot({
    sourceDir: fixtureDir(fixture),
    outFile: join(dir, `${fixture}-${validateOnWorker ? "worker" : "inline"}.db`),
    compiledAt: FIXTURE_COMPILED_AT,
    xSecret: FIXTURE_X_SECRET,
    validateOnWorker,
  });
}

test("validating on a worker thread writes the same bytes as validating inline", async () => {
  const [inline, worker] = [await compile("valid", false), await compile("valid", true)];
  expect(inline.ok && worker.ok).toBe(true);
  const a = readFileSync(join(dir, "valid-inline.db"));
  const b = readFileSync(join(dir, "valid-worker.db"));
  expect(a.equals(b)).toBe(true);
});

test("validating on a worker thread reports the same problems, in the same order", async () => {
  for (const fixture of ["errors-schema", "errors-references", "errors-duplicates"]) {
    const inline = await compile(fixture, false);
    const worker = await compile(fixture, true);
    expect(inline.ok).toBe(false);
    expect(worker).toEqual(inline);
  }
});
