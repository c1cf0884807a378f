// Shared by the compiler's and the server's tests: the fixed compile date of fixtures/, the X
// secret they are compiled with, and a helper that compiles one fixture folder to a temp file.
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { compileSnapshot } from "../../compiler/compile.ts";
import { testTempDir } from "./temp.ts";

export const FIXTURE_COMPILED_AT = new Date("2026-03-01T12:00:00.000Z");
export const FIXTURE_X_SECRET = "fixture-x-secret-not-for-production";
export const FIXTURES_DIR = fileURLToPath(new URL("../../fixtures/", import.meta.url));

export function fixtureDir(name: string): string {
  return join(FIXTURES_DIR, name);
}

/** Compiles fixtures/<name> at FIXTURE_COMPILED_AT with FIXTURE_X_SECRET; returns the snapshot path. */
export async function compileFixture(name: string): Promise<string> {
  const outFile = join(testTempDir(`cei-fixture-${name}-`), "snapshot.db");
  const result = await compileSnapshot({ sourceDir: fixtureDir(name), outFile, compiledAt: FIXTURE_COMPILED_AT, xSecret: FIXTURE_X_SECRET });
  if (!result.ok) throw new Error(`fixtures/${name} did not compile:\n${result.problems.join("\n")}`);
  return outFile;
}
