// Compile scratch files hold hidden records: they live in one private folder beside --out, go
// away when `cei compile` is stopped by a signal, and a killed compile's folder is removed by
// the next compile of the same output.
import { spawn, type ChildProcess } from "node:child_process";
import { existsSync, mkdtempSync, readdirSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, expect, test } from "vitest";
import { compileSnapshot } from "../../compiler/compile.ts";
import { writeSample } from "../../data/sample.ts";

const AS_OF = "2026-06-15T12:00:00Z";
const SECRET = "a-compile-secret-of-at-least-32-bytes";
let dir: string;
let source: string;
const children: ChildProcess[] = [];

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), "cei-scratch-"));
  source = join(dir, "source");
  // Large enough that the compile is still staging when it is stopped.
  await writeSample({ outDir: source, asOf: new Date(AS_OF), scale: 30 });
});
afterAll(() => {
  for (const child of children) child.kill("SIGKILL");
  rmSync(dir, { recursive: true, force: true });
});

const scratchFolders = (): string[] => readdirSync(dir).filter((name) => name.includes(".cei-scratch-"));

/** Starts `cei compile` and resolves once its scratch folder holds the staging database. */
async function compileUntilStaging(out: string): Promise<ChildProcess> {
  const child = spawn(process.execPath, ["bin/cei.js", "compile", "--source", source, "--out", out, "--as-of", AS_OF], {
    env: { ...process.env, CEI_X_SECRET: SECRET },
    stdio: ["ignore", "ignore", "pipe"],
  });
  children.push(child);
  const scratch = join(dir, `.snapshot.db.cei-scratch-${child.pid}`);
  for (let waited = 0; !existsSync(join(scratch, "staging")); waited += 10) {
    if (waited > 20_000 || child.exitCode !== null) throw new Error("the compile never started staging");
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
  expect(statSync(scratch).mode & 0o777).toBe(0o700);
  return child;
}

const exited = (child: ChildProcess) =>
  new Promise<{ code: number | null; signal: string | null }>((resolve) => {
    if (child.exitCode !== null || child.signalCode !== null) resolve({ code: child.exitCode, signal: child.signalCode });
    else child.once("exit", (code, signal) => resolve({ code, signal }));
  });

test("SIGTERM during cei compile removes its private scratch folder and writes nothing", async () => {
  const out = join(dir, "snapshot.db");
  const child = await compileUntilStaging(out);
  let stderr = "";
  child.stderr!.setEncoding("utf8").on("data", (chunk: string) => (stderr += chunk));
  child.kill("SIGTERM");
  expect(await exited(child), stderr).toEqual({ code: 143, signal: null });
  expect(stderr).toContain("stopped by SIGTERM");
  expect(scratchFolders()).toEqual([]);
  expect(existsSync(out)).toBe(false);
});

test("the scratch folder of a SIGKILLed compile is removed by the next compile", async () => {
  const out = join(dir, "snapshot.db");
  const child = await compileUntilStaging(out);
  child.kill("SIGKILL");
  await exited(child);
  expect(scratchFolders()).toEqual([`.snapshot.db.cei-scratch-${child.pid}`]);
  const again = await compileSnapshot({ sourceDir: source, outFile: out, compiledAt: new Date(AS_OF), xSecret: SECRET, threads: 1 });
  expect(again.ok).toBe(true);
  expect(scratchFolders()).toEqual([]);
}, 60_000);
