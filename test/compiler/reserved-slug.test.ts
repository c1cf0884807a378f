// A project may not take the slug "trending": while operation 10 is unreleased its path is served
// as a project slug (decision 5), so a project of that name would make the hidden path answer.
import { cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, expect, test } from "vitest";
import { compileSnapshot } from "../../compiler/compile.ts";
import { FIXTURE_COMPILED_AT, FIXTURE_X_SECRET, fixtureDir } from "../_support/fixtures.ts";

let dir: string | undefined;
afterEach(() => {
  if (dir !== undefined) rmSync(dir, { recursive: true, force: true });
});

test('a project with the slug "trending" is a file:line problem', async () => {
  dir = mkdtempSync(join(tmpdir(), "cei-reserved-"));
  const sourceDir = join(dir, "source");
  cpSync(fixtureDir("valid"), sourceDir, { recursive: true });
  const projects = join(sourceDir, "projects.jsonl");
  const lines = readFileSync(projects, "utf8").trimEnd().split("\n");
  const renamed = { ...JSON.parse(lines[0]!), slug: "trending" };
  lines[0] = JSON.stringify(renamed);
  writeFileSync(projects, lines.join("\n") + "\n");
  const result = await compileSnapshot({ sourceDir, outFile: join(dir, "snapshot.db"), compiledAt: FIXTURE_COMPILED_AT, xSecret: FIXTURE_X_SECRET });
  expect(result.ok).toBe(false);
  expect(result.ok ? [] : result.problems).toContain('projects.jsonl:1: slug: expected a slug other than "trending" (the path of an operation)');
});
