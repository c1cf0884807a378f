// examples/ci: the workflow linted (parsed strictly with the `yaml` library, then checked against
// the rules of a GitHub Actions workflow that this recipe relies on), and its steps run for real by
// the shell script on fixtures: the real compiler and `cei diff`, a baseline built and one
// downloaded, and a local stand-in for GitHub's REST API that records the comments posted and
// updated.
import { execFile, spawnSync } from "node:child_process";
import { createServer, type IncomingMessage, type Server } from "node:http";
import { copyFileSync, readFileSync } from "node:fs";
import type { AddressInfo } from "node:net";
import { join } from "node:path";
import { afterAll, beforeAll, expect, test } from "vitest";
import { parseDocument } from "yaml";
import { FIXTURE_X_SECRET, fixtureDir } from "../_support/fixtures.ts";
import { CEI_BIN, REPO_ROOT } from "../_support/processes.ts";
import { testTempDir } from "../_support/temp.ts";

const CI = join(REPO_ROOT, "examples/ci");
const SCRIPT = join(CI, "cei-diff.sh");
const MARKER = "<!-- cei diff -->";

interface Step { name?: string; id?: string; if?: string; uses?: string; run?: string; with?: Record<string, unknown>; env?: Record<string, unknown> }
interface Workflow { on: Record<string, unknown>; permissions: Record<string, string>; env: Record<string, string>; jobs: Record<string, { "runs-on": string; steps: Step[] }> }

function lintedWorkflow(): Workflow {
  const document = parseDocument(readFileSync(join(CI, "cei-diff.yml"), "utf8"), { strict: true, uniqueKeys: true, prettyErrors: true });
  expect([...document.errors, ...document.warnings].map((e) => e.message)).toEqual([]);
  return document.toJS() as Workflow;
}

/** The steps the script runs when given none, from its usage line. */
const scriptSteps = () => /steps: ([a-z ]+) \(default: all, in order\)/.exec(readFileSync(SCRIPT, "utf8"))![1]!.split(" ");

test("the workflow: strict YAML, a workflow's shape, least privilege, pinned actions, and the script's steps in its order", () => {
  const workflow = lintedWorkflow();
  expect(Object.keys(workflow).sort()).toEqual(["concurrency", "env", "jobs", "name", "on", "permissions"]);
  expect(Object.keys(workflow.on)).toEqual(["pull_request"]);
  expect(workflow.permissions).toEqual({ contents: "read", "pull-requests": "write" });
  const steps = Object.values(workflow.jobs).flatMap((job) => {
    expect(job["runs-on"]).toMatch(/^ubuntu-/);
    return job.steps;
  });
  const known = new Set(["name", "id", "if", "uses", "run", "with", "env", "shell", "continue-on-error", "timeout-minutes", "working-directory"]);
  for (const step of steps) {
    expect(Object.keys(step).filter((key) => !known.has(key))).toEqual([]);
    expect([step.uses, step.run].filter((v) => v !== undefined)).toHaveLength(1);
    if (step.uses !== undefined) expect(step.uses).toMatch(/^[\w-]+\/[\w-]+@v\d+$/);
    if (step.run !== undefined) expect(spawnSync("bash", ["-n"], { input: step.run }).status).toBe(0);
  }
  // Expressions: balanced, and naming only contexts a pull_request workflow has; env.X only for X set above.
  const text = readFileSync(join(CI, "cei-diff.yml"), "utf8");
  expect(text.split("${{").length).toBe(text.split("}}").length);
  for (const [, expression] of text.matchAll(/\$\{\{\s*(.*?)\s*\}\}/g)) {
    expect(expression).toMatch(/^(!cancelled\(\)|github\.[\w.]+|secrets\.[A-Z_]+|env\.[A-Z_]+)$/);
    if (expression!.startsWith("env.")) expect(Object.keys(workflow.env)).toContain(expression!.slice(4));
  }
  // The run steps are the script's, in its order, and the comment is posted even after a failed step.
  const scripted = steps.flatMap((step) => (/cei-diff\.sh (\w+)$/.exec(step.run?.trim() ?? "") ?? []).slice(1));
  expect(scripted).toEqual(scriptSteps());
  const comment = steps.find((step) => step.run?.includes("cei-diff.sh comment"))!;
  expect(comment.if).toBe("${{ !cancelled() }}");
  expect(Object.keys(comment.env ?? {}).sort()).toEqual(["CEI_PR_NUMBER", "GITHUB_TOKEN"]);
  expect(spawnSync("bash", ["-n", SCRIPT]).status).toBe(0);
});

/** GitHub's issue-comment endpoints, in memory; and the baseline snapshot for download. */
interface FakeGitHub { url: string; comments: Map<number, { number: string; body: string }>; requests: string[]; server: Server; baseline: string }

function fakeGitHub(baseline: string): Promise<FakeGitHub> {
  const comments = new Map<number, { number: string; body: string }>();
  const requests: string[] = [];
  const read = async (request: IncomingMessage) => {
    const chunks: Buffer[] = [];
    for await (const chunk of request) chunks.push(chunk as Buffer);
    return JSON.parse(Buffer.concat(chunks).toString()) as { body: string };
  };
  const server = createServer(async (request, response) => {
    const { method = "", url = "" } = request;
    requests.push(`${method} ${url.replace(/\?.*/, "")}`);
    if (url === "/baseline.db" && request.headers.authorization === "Bearer baseline-token") return response.end(readFileSync(fake.baseline));
    if (request.headers.authorization !== "Bearer test-token") return response.writeHead(401).end("{}");
    const list = /^\/repos\/owner\/data\/issues\/(\d+)\/comments(\?.*)?$/.exec(url);
    const one = /^\/repos\/owner\/data\/issues\/comments\/(\d+)$/.exec(url);
    const json = (status: number, value: unknown) => response.writeHead(status, { "content-type": "application/json" }).end(JSON.stringify(value));
    const shown = (id: number) => ({ id, body: comments.get(id)!.body, html_url: `https://github.test/owner/data/pull/${comments.get(id)!.number}#issuecomment-${id}` });
    if (list && method === "GET") return json(200, [...comments.keys()].filter((id) => comments.get(id)!.number === list[1]).map(shown));
    if (list && method === "POST") {
      const id = comments.size + 1;
      comments.set(id, { number: list[1]!, body: (await read(request)).body });
      return json(201, shown(id));
    }
    if (one && method === "PATCH" && comments.has(Number(one[1]))) {
      comments.get(Number(one[1]))!.body = (await read(request)).body;
      return json(200, shown(Number(one[1])));
    }
    json(404, { message: "Not Found" });
  });
  const fake: FakeGitHub = { url: "", comments, requests, server, baseline };
  return new Promise((resolve) => server.listen(0, "127.0.0.1", () => resolve({ ...fake, url: `http://127.0.0.1:${(server.address() as AddressInfo).port}` })));
}

let github: FakeGitHub;
let work = "";

beforeAll(async () => {
  work = testTempDir("cei-ci-recipe-");
  github = await fakeGitHub(join(work, "served.db"));
});
afterAll(() => new Promise<void>((resolve) => (github?.server.close(() => resolve()) ?? resolve())));

/** The script as the workflow runs it, with the settings a repository would give. */
function runScript(settings: Record<string, string>): Promise<{ code: number; stdout: string; stderr: string }> {
  const env = {
    PATH: process.env.PATH!,
    CEI: `${process.execPath} ${CEI_BIN}`,
    NODE: process.execPath,
    CEI_AS_OF: "2026-03-01T12:00:00Z",
    CEI_X_SECRET: FIXTURE_X_SECRET,
    GITHUB_API_URL: github.url,
    GITHUB_REPOSITORY: "owner/data",
    GITHUB_TOKEN: "test-token",
    ...settings,
  };
  return new Promise((resolve) => {
    execFile("bash", [SCRIPT], { cwd: work, env }, (error, stdout, stderr) => resolve({ code: error === null ? 0 : Number(error.code), stdout, stderr }));
  });
}

test("the script on fixtures: posts the diff once, updates that same comment at the next push, fails on the chosen kinds", async () => {
  const [first, broken] = await Promise.all([
    runScript({ CEI_WORK: "pr-7", CEI_PR_NUMBER: "7", CEI_SOURCES: fixtureDir("valid-changed"), CEI_BASELINE_SOURCES: fixtureDir("valid"), CEI_FAIL_ON: "warnings", GITHUB_STEP_SUMMARY: join(work, "summary.md") }),
    runScript({ CEI_WORK: "pr-8", CEI_PR_NUMBER: "8", CEI_SOURCES: fixtureDir("errors-schema"), CEI_BASELINE_SOURCES: fixtureDir("valid") }),
  ]);
  // A diff without warnings passes; its Markdown is the comment, and the job's summary.
  expect(first).toMatchObject({ code: 0 });
  const markdown = readFileSync(join(work, "pr-7/comment.md"), "utf8");
  expect(markdown).toContain("| projects | 1 | 1 | 2 |  |");
  expect([...github.comments.values()].filter((c) => c.number === "7").map((c) => c.body)).toEqual([`${MARKER}\n${markdown}`]);
  expect(readFileSync(join(work, "summary.md"), "utf8")).toBe(markdown);
  // Sources that do not compile: the comment lists the problems as a code block, and the job fails.
  expect(broken.code).toBe(1);
  const problems = [...github.comments.values()].find((c) => c.number === "8")!.body;
  expect(problems).toMatch(/^<!-- cei diff -->\n### cei diff\n\nThe proposed sources do not compile:\n\n {4}\S+\.jsonl:\d+: /);
  expect(readFileSync(join(work, "pr-8/comment.md"), "utf8").split("\n").slice(4).filter((l) => l !== "").every((l) => l.startsWith("    "))).toBe(true);

  // The next push: the baseline downloaded this time, failing on a removed record; the same comment is updated.
  copyFileSync(join(work, "pr-7/baseline.db"), github.baseline);
  const before = github.requests.length;
  const second = await runScript({ CEI_WORK: "pr-7", CEI_PR_NUMBER: "7", CEI_SOURCES: fixtureDir("valid-changed"), CEI_BASELINE_URL: `${github.url}/baseline.db`, CEI_BASELINE_TOKEN: "baseline-token", CEI_FAIL_ON: "removed" });
  expect(second.code).toBe(1);
  expect(second.stderr).toContain("cei diff: --fail-on removed: 1 record removed");
  const id = [...github.comments].find(([, c]) => c.number === "7")![0];
  expect(github.requests.slice(before)).toEqual(["GET /baseline.db", "GET /repos/owner/data/issues/7/comments", `PATCH /repos/owner/data/issues/comments/${id}`]);
  expect([...github.comments.values()].filter((c) => c.number === "7")).toHaveLength(1);
  expect(readFileSync(join(work, "pr-7/comment.md"), "utf8")).toBe(markdown);
});
