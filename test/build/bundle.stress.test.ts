// The prebuilt bundle (scripts/build.mjs → dist/) and bin/cei.js's choice between it and the
// TypeScript sources through tsx. Everything runs in a temp copy of the repository (sources,
// bin, scripts; node_modules linked), so that touching sources here cannot disturb the working
// tree's own dist/ nor be disturbed by edits made to the working tree meanwhile.
import { spawn } from "node:child_process";
import { cpSync, existsSync, mkdtempSync, readdirSync, readFileSync, renameSync, rmSync, statSync, symlinkSync, utimesSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, expect, test } from "vitest";
import { openMeterDatabase } from "../../server/meter/sqlite/database.ts";
import { createKey } from "../../server/meter/sqlite/keys.ts";
import { compileFixture } from "../_support/fixtures.ts";

const REPO_DIR = fileURLToPath(new URL("../../", import.meta.url));
const COPIED = ["bin", "cli", "clients", "compiler", "snapshot", "server", "data", "docs", "scripts", "package.json", "tsconfig.json"];
const AS_OF = "2026-03-01T00:00:00Z";
/** compiler/read-sources.ts validates on a worker from this much input up. */
const WORKER_THRESHOLD_BYTES = 4 * 1024 * 1024;

let repo: string;

interface Run { code: number | null; stdout: string; stderr: string }

function run(args: readonly string[], env: Record<string, string> = {}): Promise<Run> {
  const child = spawn(process.execPath, args, { cwd: repo, env: { ...process.env, CEI_DEBUG_ENTRY: "1", ...env }, stdio: ["ignore", "pipe", "pipe"] });
  let stdout = "";
  let stderr = "";
  child.stdout.setEncoding("utf8").on("data", (chunk: string) => (stdout += chunk));
  child.stderr.setEncoding("utf8").on("data", (chunk: string) => (stderr += chunk));
  return new Promise((resolve) => child.once("close", (code) => resolve({ code, stdout, stderr })));
}

const cei = (args: readonly string[], env: Record<string, string> = {}) => run(["bin/cei.js", ...args], env);

/** The path bin/cei.js took, from its CEI_DEBUG_ENTRY line. */
function entry(result: Run): string {
  return /^cei entry: (.*)$/m.exec(result.stderr)?.[1] ?? `(no entry line in: ${result.stderr})`;
}

async function build(): Promise<void> {
  const result = await run(["scripts/build.mjs"]);
  expect(result.code, result.stderr).toBe(0);
}

beforeAll(async () => {
  repo = mkdtempSync(join(tmpdir(), "cei-build-"));
  for (const name of COPIED) cpSync(join(REPO_DIR, name), join(repo, name), { recursive: true });
  symlinkSync(join(REPO_DIR, "node_modules"), join(repo, "node_modules"), "dir");
  await build();
});

afterAll(() => {
  if (repo !== undefined) rmSync(repo, { recursive: true, force: true });
});

test("the build writes the bundle and its build info, and `cei --help` runs from it", async () => {
  for (const file of ["main.mjs", "_worker.mjs", "build-info.json"]) expect(existsSync(join(repo, "dist", file))).toBe(true);
  const info = JSON.parse(readFileSync(join(repo, "dist/build-info.json"), "utf8")) as { inputs: { path: string }[] };
  const paths = info.inputs.map((i) => i.path);
  expect(paths).toEqual(expect.arrayContaining(["cli/main.ts", "cli/serve.ts", "compiler/_worker.ts", "server/app.ts", "scripts/build.mjs"]));
  expect(paths.some((p) => p.includes("node_modules"))).toBe(false);

  const help = await cei(["--help"]);
  expect(help.code).toBe(0);
  expect(entry(help)).toBe("dist");
  for (const command of ["compile", "sample", "schema", "inspect", "diff", "serve", "keys"]) expect(help.stdout).toContain(command);
});

test("`cei serve` from the bundle answers a real request", async () => {
  const snapshot = await compileFixture("valid");
  const meterFile = join(repo, "meter.db");
  const db = openMeterDatabase(meterFile);
  const { key } = createKey(db, { tier: "internal", credits: 1_000, name: "build-test" }, Date.now());
  db.close();
  const child = spawn(process.execPath, ["bin/cei.js", "serve", "--snapshot", snapshot, "--meter", meterFile, "--port", "0"], {
    cwd: repo, env: { ...process.env, CEI_DEBUG_ENTRY: "1" }, stdio: ["ignore", "pipe", "pipe"],
  });
  let stderr = "";
  child.stderr.setEncoding("utf8").on("data", (chunk: string) => (stderr += chunk));
  try {
    const url = await new Promise<string>((resolve, reject) => {
      let out = "";
      child.stdout.setEncoding("utf8").on("data", (chunk: string) => {
        out += chunk;
        const match = /^cei serving .* on (http:\/\/\S+)/m.exec(out);
        if (match) resolve(match[1]!);
      });
      child.once("exit", (code) => reject(new Error(`cei serve exited with ${code}: ${stderr}`)));
    });
    expect(stderr).toContain("cei entry: dist");
    const res = await fetch(`${url}/v1/projects/aurora-swap`, { headers: { authorization: `Bearer ${key}` } });
    expect(res.status).toBe(200);
    expect(((await res.json()) as { data: { id: string } }).data.id).toBe("proj_aurora");
    // The reference page's assets are the build's, sent as they were compressed.
    await expect.poll(() => stderr).toContain("the reference page's assets are the build's");
    const html = await (await fetch(`${url}/docs`)).text();
    const bundlePath = /src="(\/docs\/redoc\.standalone\.[0-9a-f]{16}\.js)"/.exec(html)![1]!;
    const asset = await fetch(`${url}${bundlePath}`, { headers: { "accept-encoding": "br" } });
    expect(asset.headers.get("content-encoding")).toBe("br");
    await asset.arrayBuffer();
    const built = readFileSync(join(repo, "dist/docs", `${bundlePath.slice("/docs/".length)}.br`));
    expect(Number(asset.headers.get("content-length"))).toBe(built.length);
  } finally {
    const exited = new Promise((resolve) => child.once("close", resolve));
    child.kill("SIGTERM");
    await exited;
  }
});

test("compiling through the bundle validates on the bundled worker and writes the same bytes as the tsx path", async () => {
  const source = join(repo, "sample");
  const sample = await cei(["sample", "--out", source, "--scale", "6", "--as-of", AS_OF]);
  expect(sample.code, sample.stderr).toBe(0);
  const bytes = readdirSync(source).filter((f) => f.endsWith(".jsonl")).reduce((sum, f) => sum + statSync(join(source, f)).size, 0);
  expect(bytes).toBeGreaterThanOrEqual(WORKER_THRESHOLD_BYTES);

  const compile = (entryName: "dist" | "tsx", out: string) =>
    cei(["compile", "--source", source, "--out", join(repo, out), "--as-of", AS_OF], { CEI_X_SECRET: "build-test-secret-of-at-least-32-bytes", CEI_ENTRY: entryName });
  const bundled = await compile("dist", "bundled.db");
  expect(bundled.code, bundled.stderr).toBe(0);
  expect(entry(bundled)).toBe("dist");
  const sources = await compile("tsx", "tsx.db");
  expect(sources.code, sources.stderr).toBe(0);
  expect(entry(sources)).toBe("tsx (CEI_ENTRY=tsx)");
  expect(readFileSync(join(repo, "bundled.db")).equals(readFileSync(join(repo, "tsx.db")))).toBe(true);

  // The bundled compile really starts dist/_worker.mjs: without it, it fails.
  renameSync(join(repo, "dist/_worker.mjs"), join(repo, "dist/_worker.mjs.away"));
  try {
    const broken = await compile("dist", "broken.db");
    expect(entry(broken)).toBe("dist");
    expect(broken.code).not.toBe(0);
    expect(broken.stderr).toContain("_worker.mjs");
  } finally {
    renameSync(join(repo, "dist/_worker.mjs.away"), join(repo, "dist/_worker.mjs"));
  }
}, 60_000);

test("a source edited after the build is run from the sources, never from the stale bundle", async () => {
  expect(entry(await cei(["--help"]))).toBe("dist");

  // An edit: the new text shows at once, through tsx.
  const main = join(repo, "cli/main.ts");
  const original = readFileSync(main, "utf8");
  writeFileSync(main, original.replace("Curated entity intelligence:", "Edited entity intelligence:"));
  const edited = await cei(["--help"]);
  expect(entry(edited)).toBe("tsx (cli/main.ts changed since the build)");
  expect(edited.stdout).toContain("Edited entity intelligence:");

  // A deeper source only touched (content unchanged, newer mtime) is enough too.
  writeFileSync(main, original);
  await build();
  expect(entry(await cei(["--help"]))).toBe("dist");
  const deep = join(repo, "server/meter/sqlite/keys.ts");
  const later = new Date(statSync(deep).mtimeMs + 5_000);
  utimesSync(deep, later, later);
  expect(entry(await cei(["--help"]))).toBe("tsx (server/meter/sqlite/keys.ts changed since the build)");

  // A source the build read that is gone, and a dist without build info.
  await build();
  renameSync(deep, `${deep}.away`);
  expect(entry(await cei(["--help"]))).toBe("tsx (server/meter/sqlite/keys.ts changed since the build)");
  renameSync(`${deep}.away`, deep);
  rmSync(join(repo, "dist/build-info.json"));
  const noInfo = await cei(["--help"]);
  expect(entry(noInfo)).toBe("tsx (no dist/build-info.json)");
  expect(noInfo.code).toBe(0);

  // Rebuilt: the bundle is used again.
  await build();
  expect(entry(await cei(["--help"]))).toBe("dist");
}, 60_000);
