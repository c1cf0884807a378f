// Two snapshots compiled from fixtures/valid that differ in one project's name ("Aurora Swap" in
// a, "Aurora Swap Two" in b), for the tests that publish one over the other under a live server.
import { copyFileSync, cpSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { compileSnapshot } from "../../compiler/compile.ts";
import { readManifest } from "../../compiler/manifest.ts";
import { compileFixture, FIXTURE_COMPILED_AT, FIXTURE_X_SECRET, fixtureDir } from "./fixtures.ts";

export interface SnapshotPair {
  files: { a: string; b: string };
  hashes: { a: string; b: string };
}

/** Compiles the pair into `work` as a.db and b.db (b's sources in `work`/variant). */
export async function compileSnapshotPair(work: string): Promise<SnapshotPair> {
  const variant = join(work, "variant");
  cpSync(fixtureDir("valid"), variant, { recursive: true });
  const projects = join(variant, "projects.jsonl");
  writeFileSync(projects, readFileSync(projects, "utf8").replace('"name": "Aurora Swap"', '"name": "Aurora Swap Two"'));
  const b = join(work, "b.db");
  const compiled = await compileSnapshot({ sourceDir: variant, outFile: b, compiledAt: FIXTURE_COMPILED_AT, xSecret: FIXTURE_X_SECRET });
  if (!compiled.ok) throw new Error(compiled.problems.join("\n"));
  const a = join(work, "a.db");
  copyFileSync(await compileFixture("valid"), a);
  const hashes = { a: readManifest(a).content_hash as string, b: readManifest(b).content_hash as string };
  if (hashes.a === hashes.b) throw new Error("the two snapshots have the same content hash");
  return { files: { a, b }, hashes };
}
