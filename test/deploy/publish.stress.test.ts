// The kit's publish script (deploy/publish.sh) against three real `cei serve` readers, each with its
// own snapshot folder: a good snapshot reaches every reader (one of them "remote", through stand-ins
// for ssh and scp that run locally); a damaged one is refused by the first reader and rolled back, so
// the served path holds the file that reader serves and a restart still works; a reader that never
// takes the new file (stopped) rolls back every reader already switched.
import { execFile } from "node:child_process";
import { chmodSync, closeSync, copyFileSync, existsSync, mkdirSync, openSync, readdirSync, readFileSync, writeFileSync, writeSync } from "node:fs";
import { join } from "node:path";
import { promisify } from "node:util";
import { afterAll, beforeAll, expect, it } from "vitest";
import { readManifest } from "../../compiler/manifest.ts";
import { compileSample } from "../_support/fixtures.ts";
import { CEI_BIN, REPO_ROOT, startCeiServe, type ChildServer } from "../_support/processes.ts";
import { testTempDir } from "../_support/temp.ts";

const SCRIPT = join(REPO_ROOT, "deploy/publish.sh");

let work: string;
let meter: string;
let served: string[];
let readers: ChildServer[];
let hashA: string;
let hashB: string;
let fileA: string;
let fileB: string;
let env: NodeJS.ProcessEnv;

const hashOf = (file: string) => String(readManifest(file).content_hash);
const readyHash = async (reader: ChildServer) => ((await (await fetch(`${reader.url}/readyz`)).json()) as { snapshot: string }).snapshot;

beforeAll(async () => {
  work = testTempDir("cei-publish-");
  meter = join(work, "meter.db");
  const now = Date.now();
  fileA = await compileSample(new Date(now - 60_000));
  fileB = await compileSample(new Date(now));
  [hashA, hashB] = [hashOf(fileA), hashOf(fileB)];
  expect(hashA).not.toBe(hashB);
  served = [0, 1, 2].map((index) => {
    const folder = join(work, `reader-${index}`);
    mkdirSync(folder);
    copyFileSync(fileA, join(folder, "current.db"));
    return join(folder, "current.db");
  });
  readers = await Promise.all(served.map((path) => startCeiServe(path, meter)));
  // Stand-ins for ssh and scp: the "remote" reader is on this machine, reached by the script's remote path.
  const bin = join(work, "bin");
  mkdirSync(bin);
  writeFileSync(join(bin, "ssh"), '#!/bin/sh\nshift\nexec sh -c "$*"\n');
  writeFileSync(join(bin, "scp"), '#!/bin/sh\n[ "$1" = -q ] && shift\nexec cp "$1" "${2#*:}"\n');
  for (const tool of ["ssh", "scp"]) chmodSync(join(bin, tool), 0o755);
  env = { ...process.env, CEI: `${process.execPath} ${CEI_BIN}`, NODE: process.execPath, SSH: join(bin, "ssh"), SCP: join(bin, "scp") };
}, 120_000);

afterAll(async () => {
  for (const reader of readers ?? []) await reader.stop("SIGTERM");
});

async function publish(file: string, timeoutSeconds: number, targets = readers.map((reader, index) => `${reader.url}=${index === 2 ? "reader-host:" : ""}${served[index]}`)) {
  try {
    const { stderr } = await promisify(execFile)("bash", [SCRIPT, "--timeout", String(timeoutSeconds), file, ...targets], { env });
    return { code: 0, stderr };
  } catch (error) {
    const failed = error as { code: number; stderr: string };
    return { code: failed.code, stderr: failed.stderr };
  }
}

const leftovers = () => served.flatMap((path) => readdirSync(join(path, "..")).filter((name) => name.startsWith(".cei-publish")));

it("publishes to every reader, one after another, and keeps the file each served before as previous.db", async () => {
  const result = await publish(fileB, 30);
  expect(result.stderr).toMatch(new RegExp(`done: every reader serves ${hashB}`));
  expect(result.code).toBe(0);
  expect(await Promise.all(readers.map(readyHash))).toEqual([hashB, hashB, hashB]);
  for (const path of served) {
    expect(readFileSync(path).equals(readFileSync(fileB))).toBe(true);
    expect(readFileSync(join(path, "..", "previous.db")).equals(readFileSync(fileA))).toBe(true);
  }
  expect(leftovers()).toEqual([]);
}, 60_000);

it("a damaged snapshot is refused by the first reader and rolled back: its served path keeps the good file, and a restart serves it", async () => {
  const damaged = join(work, "damaged.db");
  copyFileSync(fileA, damaged);
  const fd = openSync(damaged, "r+");
  // Past the schema pages: tables' b-tree pages overwritten (the manifest, and so its hash, still reads).
  writeSync(fd, Buffer.alloc(8192, 0xa5), 0, 8192, 4096 * 6);
  closeSync(fd);
  const result = await publish(damaged, 3);
  expect(result.code).toBe(1);
  expect(result.stderr).toMatch(new RegExp(`still serves ${hashB} \\(ready\\) after 3 s: it refused ${hashA}`));
  expect(readers[0]!.stderr()).toMatch(/"event":"snapshot_refused"/);
  for (const path of served) expect(readFileSync(path).equals(readFileSync(fileB))).toBe(true);
  expect(leftovers()).toEqual([]);
  expect(await Promise.all(readers.map(readyHash))).toEqual([hashB, hashB, hashB]);

  await readers[0]!.stop("SIGTERM");
  readers[0] = await startCeiServe(served[0]!, meter);
  expect(await readyHash(readers[0]!)).toBe(hashB);
}, 60_000);

it("a reader that never takes the new snapshot rolls back every reader already switched", async () => {
  await readers[2]!.stop("SIGTERM");
  const result = await publish(fileA, 3);
  expect(result.code).toBe(1);
  expect(result.stderr).toMatch(/still serves \(no answer.*\) after 3 s/);
  expect(result.stderr).toMatch(/rolling back/);
  for (const path of served) expect(readFileSync(path).equals(readFileSync(fileB))).toBe(true);
  expect(leftovers()).toEqual([]);
  // The two running readers went to A and are back on B.
  const deadline = Date.now() + 10_000;
  while ((await Promise.all(readers.slice(0, 2).map(readyHash))).some((hash) => hash !== hashB) && Date.now() < deadline) {
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  expect(await Promise.all(readers.slice(0, 2).map(readyHash))).toEqual([hashB, hashB]);
  expect(existsSync(served[2]!)).toBe(true);
}, 60_000);
