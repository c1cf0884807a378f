// docs/openapi.json as three mainstream generators read it: openapi-typescript, @hey-api/openapi-ts
// and orval (devDependencies, pinned by the lockfile) each generate a client from it, and each must
// keep every component under its own name (no `GetProjectResponse2`, nothing missing or declared
// twice), give the success `meta` its balance and window as required fields, and state no integer
// bound that is not a real one (no ±2^53 - 1 on a limit or rank).
import { spawn } from "node:child_process";
import { mkdtempSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { beforeAll, describe, expect, it } from "vitest";
import { testTempDir } from "../_support/temp.ts";

const REPO_DIR = fileURLToPath(new URL("../../", import.meta.url));
const DOCUMENT = join(REPO_DIR, "docs/openapi.json");
const document = JSON.parse(readFileSync(DOCUMENT, "utf8")) as { components: { schemas: Record<string, unknown> } };
const components = Object.keys(document.components.schemas);

/** Runs a generator in `cwd`, its own temp files (orval's module cache) kept inside `cwd` too. */
function run(bin: string, args: string[], cwd: string): Promise<void> {
  const tmp = mkdtempSync(join(cwd, "tmp-"));
  const env = { ...process.env, TMPDIR: tmp, TMP: tmp, TEMP: tmp };
  const child = spawn(process.execPath, [join(REPO_DIR, "node_modules", bin), ...args], { cwd, env, stdio: ["ignore", "ignore", "pipe"] });
  let stderr = "";
  child.stderr.setEncoding("utf8").on("data", (chunk: string) => (stderr += chunk));
  return new Promise((resolve, reject) => {
    child.once("error", reject);
    child.once("close", (code) => (code === 0 ? resolve() : reject(new Error(`${bin} ${args.join(" ")} exited ${code}: ${stderr}`))));
  });
}

/** Every name a TypeScript file exports, by space: types (type, interface) and values (const, function, class). */
function exported(source: string): { types: string[]; values: string[] } {
  const types = [...source.matchAll(/^export (?:declare )?(?:type|interface) ([A-Za-z_$][\w$]*)/gm)].map((m) => m[1]!);
  const values = [...source.matchAll(/^export (?:declare )?(?:const|let|function|async function|class) ([A-Za-z_$][\w$]*)/gm)].map((m) => m[1]!);
  return { types, values };
}

const duplicates = (names: readonly string[]) => names.filter((name, i) => names.indexOf(name) !== i);

/** The members of one exported object type, as written: `name?: type` per line. */
function members(source: string, name: string): string[] {
  const block = new RegExp(`^export (?:type ${name} = |interface ${name} )\\{\\n([\\s\\S]*?)\\n\\}`, "m").exec(source);
  expect(block, `${name} is declared as an object type`).not.toBeNull();
  return block![1]!.split("\n").map((line) => line.trim()).filter((line) => /^[a-z_]+\??:/.test(line));
}

const out = testTempDir("cei-generators-");
const generated = { openapiTypescript: "", heyApi: "", orval: "" };

beforeAll(async () => {
  await Promise.all([
    run("openapi-typescript/bin/cli.js", [DOCUMENT, "-o", join(out, "openapi-typescript.d.ts")], out),
    run("@hey-api/openapi-ts/bin/run.js", ["-i", DOCUMENT, "-o", join(out, "hey-api"), "--no-log-file", "--silent"], out),
    run("orval/dist/bin/orval.mjs", ["--input", DOCUMENT, "--output", join(out, "orval.ts"), "--client", "fetch", "--mode", "single", "--quiet"], out),
  ]);
  generated.openapiTypescript = readFileSync(join(out, "openapi-typescript.d.ts"), "utf8");
  generated.heyApi = readFileSync(join(out, "hey-api", "types.gen.ts"), "utf8");
  generated.orval = readFileSync(join(out, "orval.ts"), "utf8");
}, 60_000);

describe("openapi-typescript", () => {
  it("keeps every component under its own name, and the success meta's fields required", () => {
    for (const name of components) expect(generated.openapiTypescript, name).toMatch(new RegExp(`^ {8}${name}: `, "m"));
    const meta = /^ {8}Meta: \{\n([\s\S]*?)\n {8}\};/m.exec(generated.openapiTypescript)![1]!;
    for (const field of ["credits_used", "credits_remaining", "rate_limit"]) expect(meta).toMatch(new RegExp(`^\\s+${field}: `, "m"));
  });
});

describe("@hey-api/openapi-ts", () => {
  it("renames nothing: every component is a type of the same name, no name is numbered", () => {
    const { types } = exported(generated.heyApi);
    expect(components.filter((name) => !types.includes(name)), "components missing or renamed").toEqual([]);
    expect(types.filter((name) => /\d$/.test(name) && types.includes(name.replace(/\d+$/, ""))), "numbered renames").toEqual([]);
    expect(duplicates(types)).toEqual([]);
    // Its own names for each operation are still there, beside ours.
    expect(types).toEqual(expect.arrayContaining(["GetProjectData", "GetProjectResponse", "GetProjectErrors"]));
  });

  it("types meta.credits_used, credits_remaining and rate_limit as required on every success", () => {
    expect(members(generated.heyApi, "Meta")).toEqual(expect.arrayContaining([
      "credits_used: number;", "credits_remaining: number;", "rate_limit: RateLimit;",
    ]));
  });
});

describe("orval", () => {
  it("keeps every component under its own name, and declares no name twice", () => {
    const { types, values } = exported(generated.orval);
    expect(components.filter((name) => !types.includes(name)), "components missing or renamed").toEqual([]);
    expect(duplicates(types)).toEqual([]);
    expect(duplicates(values)).toEqual([]);
  });

  it("states real bounds: limits and ranks from 1 to their maximum, nothing below -1", () => {
    expect(generated.orval).not.toMatch(/@minimum -\d/);
    // Every `limit` echoed by a list answer states the request's range.
    const limits = [...generated.orval.matchAll(/\* @minimum (\d+)\n\s*\* @maximum (\d+)\n\s*\*\/\n\s*limit: number;/g)];
    expect(limits.length).toBeGreaterThanOrEqual(10);
    for (const [, minimum, maximum] of limits) expect([Number(minimum), Number(maximum)]).toEqual([1, expect.any(Number)]);
    for (const [, maximum] of limits) expect(Number(maximum)).toBeLessThanOrEqual(30);
  });

  it("types closed value sets as enums: a news entity's type is one of the families", () => {
    expect(members(generated.orval, "GetNewsResultEntitiesItem")).toContain("type: GetNewsResultEntitiesItemType;");
    expect(generated.orval).toMatch(/export const GetNewsResultEntitiesItemType = \{\n\s+project: 'project',/);
  });
});
