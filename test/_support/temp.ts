// Temporary folders for shared test helpers, whose callers set up in beforeAll and cannot easily
// remove what a helper made: each folder is removed after the test file that asked for it.
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll } from "vitest";

const made: string[] = [];

// Registered when a test file imports this module: it runs after that file's tests.
afterAll(() => {
  for (const dir of made.splice(0)) rmSync(dir, { recursive: true, force: true });
});

/** A new folder in the system temp folder, removed after the current test file. */
export function testTempDir(prefix: string): string {
  const dir = mkdtempSync(join(tmpdir(), prefix));
  made.push(dir);
  return dir;
}
