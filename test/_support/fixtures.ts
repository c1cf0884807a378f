// Shared by the compiler's and the server's tests: the fixed compile date of fixtures/, the X
// secret they are compiled with, and a helper that compiles one fixture folder to a temp file.
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { compileSnapshot } from "../../compiler/compile.ts";
import { writeSample } from "../../data/sample.ts";
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

/** Paths the bundled sample answers whatever its as-of: a project (1 credit), a people search (2), stock rankings (1). */
export const SAMPLE_PATHS = ["/v1/projects/feba-protocol", "/v1/people/search?query=tokir", "/v1/stocks/rankings?region=us&limit=3"];

/**
 * The bundled sample written as of `asOf` and compiled at that moment, for servers that run on the
 * real clock (child processes): its precomputed snapshots are fresh for hours after `asOf`, so that
 * /readyz is 200 there (decision 40). Returns the snapshot's path.
 */
export async function compileSample(asOf: Date): Promise<string> {
  const dir = testTempDir("cei-sample-");
  await writeSample({ outDir: join(dir, "sources"), asOf, scale: 1 });
  const outFile = join(dir, "snapshot.db");
  const result = await compileSnapshot({ sourceDir: join(dir, "sources"), outFile, compiledAt: asOf, xSecret: FIXTURE_X_SECRET });
  if (!result.ok) throw new Error(`the sample did not compile:\n${result.problems.join("\n")}`);
  return outFile;
}
