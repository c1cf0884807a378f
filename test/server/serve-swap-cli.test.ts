// `cei serve` as an operator runs it: SIGHUP swaps in the file renamed over --snapshot (here with
// --no-watch, so that only the signal can), refuses a bad one with one line on stderr, and
// `cei inspect` shows until when each precomputed snapshot is fresh.
import { spawn } from "node:child_process";
import { closeSync, copyFileSync, mkdtempSync, openSync, renameSync, rmSync, writeFileSync, writeSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, expect, it } from "vitest";
import { readManifest } from "../../compiler/manifest.ts";
import { freshnessBounds } from "../../snapshot/freshness.ts";
import { compileSnapshot } from "../../compiler/compile.ts";
import { CEI_BIN, REPO_ROOT, cei, startChildServer, type ChildServer } from "../_support/processes.ts";
import { compileFixture, FIXTURE_X_SECRET, fixtureDir } from "../_support/fixtures.ts";

let work: string;
let served: string;
let server: ChildServer & { lines: string[] };
const hashes: string[] = [];
const files: string[] = [];

beforeAll(async () => {
  work = mkdtempSync(join(tmpdir(), "cei-serve-swap-"));
  const first = await compileFixture("valid");
  files.push(join(work, "a.db"));
  copyFileSync(first, files[0]!);
  rmSync(join(first, ".."), { recursive: true, force: true });
  // The same sources an hour later: other as_of values, another content hash.
  files.push(join(work, "b.db"));
  const compiled = await compileSnapshot({ sourceDir: fixtureDir("valid"), outFile: files[1]!, compiledAt: new Date("2026-03-01T13:00:00.000Z"), xSecret: FIXTURE_X_SECRET });
  if (!compiled.ok) throw new Error(compiled.problems.join("\n"));
  for (const file of files) hashes.push(readManifest(file).content_hash as string);
  expect(hashes[0]).not.toBe(hashes[1]);
  served = join(work, "served.db");
  copyFileSync(files[0]!, served);
  server = await startChildServer(
    [CEI_BIN, "serve", "--snapshot", served, "--meter", join(work, "meter.db"), "--port", "0", "--no-watch"],
    (lines) => /^cei serving .* on (http:\/\/127\.0\.0\.1:\d+)$/.exec(lines.at(-1)!)?.[1],
  );
}, 60_000);

afterAll(async () => {
  await server?.stop("SIGTERM");
  if (work !== undefined) rmSync(work, { recursive: true, force: true });
});

async function readiness(): Promise<{ snapshot: string; header: string | null }> {
  const response = await fetch(`${server.url}/readyz`);
  const body = (await response.json()) as { snapshot: string };
  return { snapshot: body.snapshot, header: response.headers.get("x-service-snapshot") };
}

async function until(condition: () => boolean | Promise<boolean>, what: string): Promise<void> {
  const deadline = Date.now() + 10_000;
  while (!(await condition())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}; stderr:\n${server.stderr()}`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

/** The JSON lines of the log on stderr (server/log.ts). */
function logged(): Array<Record<string, unknown>> {
  return server.stderr().split("\n").filter((line) => line.startsWith("{")).map((line) => JSON.parse(line) as Record<string, unknown>);
}

it("SIGHUP swaps in the renamed file, says when nothing changed, and refuses a bad file", async () => {
  expect(await readiness()).toEqual({ snapshot: hashes[0], header: hashes[0] });
  // The first snapshot's integrity check ran beside serving.
  await until(() => logged().some((line) => line.event === "snapshot_checked"), "the start-up check");
  expect(logged().find((line) => line.event === "snapshot_checked")).toMatchObject({ level: 30, snapshot: hashes[0], file: served });
  copyFileSync(files[1]!, `${served}.new`);
  renameSync(`${served}.new`, served);
  await new Promise((resolve) => setTimeout(resolve, 300));
  expect((await readiness()).snapshot).toBe(hashes[0]);

  server.child.kill("SIGHUP");
  await until(async () => (await readiness()).snapshot === hashes[1], "the swap");
  await until(() => logged().some((line) => line.event === "snapshot_swapped"), "the swap line");
  expect(logged().find((line) => line.event === "snapshot_swapped")).toMatchObject({
    level: 30, snapshot: hashes[1], previous: hashes[0], file: served,
    msg: expect.stringContaining(`cei serve: now serving snapshot ${hashes[1]} from ${served} (was ${hashes[0]};`),
  });

  server.child.kill("SIGHUP");
  await until(() => logged().some((line) => line.event === "snapshot_unchanged" && String(line.msg).endsWith("is the snapshot already served")), "the unchanged line");

  writeFileSync(`${served}.new`, "garbage\n");
  renameSync(`${served}.new`, served);
  server.child.kill("SIGHUP");
  await until(() => logged().some((line) => line.event === "snapshot_refused"), "the refusal");
  expect(logged().filter((line) => line.event === "snapshot_refused")).toEqual([
    expect.objectContaining({
      level: 40, file: served, reason: "it is not a SQLite database", snapshot: hashes[1],
      msg: `cei serve: refused ${served}: it is not a SQLite database; still serving snapshot ${hashes[1]}`,
    }),
  ]);
  expect(await readiness()).toEqual({ snapshot: hashes[1], header: hashes[1] });
}, 30_000);

it("cei inspect shows until when each precomputed snapshot is fresh", async () => {
  const shown = JSON.parse(await cei(["inspect", files[1]!])) as { snapshots: Record<string, string | null>; fresh_until: Record<string, string | null> };
  expect(shown.fresh_until.stock_rankings).toBeNull();
  expect(shown.fresh_until.market).toBe(new Date(Date.parse(shown.snapshots.market!) + freshnessBounds.market).toISOString());
  expect(shown.fresh_until.trending_live).toBe(new Date(Date.parse(shown.snapshots.trending_live!) + freshnessBounds.trending_live).toISOString());
  expect(Object.keys(shown.fresh_until).sort()).toEqual(Object.keys(shown.snapshots).sort());
});

it("a damaged snapshot at start-up serves only until its integrity check, then the server stops with exit code 1", async () => {
  const damaged = join(work, "damaged.db");
  copyFileSync(files[0]!, damaged);
  const fd = openSync(damaged, "r+");
  // Past the schema pages: tables' b-tree pages overwritten with garbage (the manifest still reads).
  writeSync(fd, Buffer.alloc(8192, 0xa5), 0, 8192, 4096 * 6);
  closeSync(fd);
  const child = spawn(process.execPath, [CEI_BIN, "serve", "--snapshot", damaged, "--meter", join(work, "meter-damaged.db"), "--port", "0", "--no-watch"], {
    cwd: REPO_ROOT, stdio: ["ignore", "pipe", "pipe"],
  });
  let stdout = "";
  let stderr = "";
  child.stdout.on("data", (chunk: Buffer) => (stdout += chunk.toString()));
  child.stderr.on("data", (chunk: Buffer) => (stderr += chunk.toString()));
  const code = await new Promise<number | null>((resolve) => child.once("exit", resolve));
  expect(stdout).toMatch(/^cei serving .* on http:\/\/127\.0\.0\.1:\d+\n$/);
  const lines = stderr.split("\n").filter((line) => line.startsWith("{")).map((line) => JSON.parse(line) as Record<string, unknown>);
  expect(lines.find((line) => line.event === "snapshot_damaged")).toMatchObject({
    level: 60, file: damaged, reason: expect.stringMatching(/^it is damaged \(.*(malformed|corrupt|wrong # of entries|invalid page|btreeInitPage|Tree)/),
  });
  expect(lines.some((line) => line.event === "snapshot_checked")).toBe(false);
  expect(lines.at(-1)).toMatchObject({ event: "stopped" });
  expect(code).toBe(1);
}, 30_000);
