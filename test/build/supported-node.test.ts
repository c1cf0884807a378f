// `npm start` and `npm test` run through scripts/with-supported-node.sh: the Node on PATH when it
// is 22 or newer, else the newest Node 24 that scripts/node.sh brings (from its cache, which the
// run's own runtime came from, or the npm registry).
import { execFileSync } from "node:child_process";
import { chmodSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, expect, it } from "vitest";

const script = fileURLToPath(new URL("../../scripts/with-supported-node.sh", import.meta.url));
const fakes = mkdtempSync(join(tmpdir(), "fake-node-"));
afterAll(() => rmSync(fakes, { recursive: true, force: true }));

/** A `node` first on PATH that says it is `major` when asked (`node -p`) and is otherwise this run's Node (npm runs on it). */
function pathWithNode(major: number): string {
  const dir = join(fakes, String(major));
  execFileSync("mkdir", ["-p", dir]);
  writeFileSync(join(dir, "node"), `#!/bin/sh\nif [ "$1" = "-p" ]; then echo ${major}; else exec "${process.execPath}" "$@"; fi\n`);
  chmodSync(join(dir, "node"), 0o755);
  return `${dir}:${process.env.PATH}`;
}

const run = (path: string) => execFileSync(script, ["sh", "-c", "command -v node; echo ran"], { env: { ...process.env, PATH: path }, encoding: "utf8", stdio: ["ignore", "pipe", "pipe"] });

it("runs the command as it is under Node 22 or newer", () => {
  expect(run(pathWithNode(22))).toBe(`${join(fakes, "22", "node")}\nran\n`);
  expect(run(pathWithNode(24))).toBe(`${join(fakes, "24", "node")}\nran\n`);
});

it("runs it under the newest Node 24 from scripts/node.sh when the Node on PATH is older", () => {
  const out = run(pathWithNode(20)).split("\n");
  expect(out[0]).toMatch(/\/cei\/node\/24\.\d+\.\d+\/bin\/node$/);
  expect(out[1]).toBe("ran");
}, 60_000);
