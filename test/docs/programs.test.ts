// Every code block of README.md, docs/api.md and the clients' READMEs that is a complete program runs here, as a reader
// would run it, against a real server on an ephemeral port: shell with bash, Python with python3,
// TypeScript with tsx. A block that is not one says why, on the line before it:
// `<!-- not run: <reason> -->`. The server is docs/api.md's: the bundled sample at its examples'
// as-of, the clock five minutes later, trending projects released; its address replaces
// http://127.0.0.1:8787 in each program, and CEI_KEY holds a key. An example of docs/api.md (between
// its `example:` markers) must answer what the page shows: the same status and the same `data` or
// `error`. Any other program must exit 0 and write nothing on stderr: the README's programs stop
// with an error on any error answer.
import { spawn } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { EXAMPLES_AS_OF, openExampleService, type ExampleService } from "../../docs/api-examples.ts";
import { startServer, type RunningServer } from "../../server/listen.ts";
import { tierRateLimits } from "../../server/policy.ts";

const REPO_DIR = fileURLToPath(new URL("../../", import.meta.url));
const DOCUMENTED_BASE = "http://127.0.0.1:8787";
const RUNNERS: Record<string, { command: string; args: string[]; inRepo: boolean }> = {
  sh: { command: "bash", args: ["-eo", "pipefail", "-s"], inRepo: false },
  python: { command: "python3", args: ["-"], inRepo: true },
  ts: { command: process.execPath, args: [join(REPO_DIR, "node_modules/tsx/dist/cli.mjs"), "-"], inRepo: true },
};

interface Program { file: string; line: number; lang: string; code: string; example: string | undefined; documented: string | undefined }

/** Every fenced block in a runnable language, with the example it belongs to and what the page shows it answering. */
function programs(file: string): { run: Program[]; skipped: Array<{ line: number; reason: string }> } {
  const markdown = readFileSync(join(REPO_DIR, file), "utf8");
  const run: Program[] = [];
  const skipped: Array<{ line: number; reason: string }> = [];
  for (const match of markdown.matchAll(/^```(\w+)\n([\s\S]*?)\n```$/gm)) {
    const lang = match[1] === "bash" ? "sh" : match[1] === "typescript" ? "ts" : match[1]!;
    if (!Object.hasOwn(RUNNERS, lang)) continue;
    const before = markdown.slice(0, match.index);
    const line = before.split("\n").length;
    const reason = /<!-- not run: ([^>]+) -->\n$/.exec(before)?.[1];
    if (reason !== undefined) {
      skipped.push({ line, reason });
      continue;
    }
    const opened = before.lastIndexOf("<!-- example:");
    const inExample = opened > before.lastIndexOf("<!-- /example -->");
    const example = inExample ? /<!-- example:([a-z0-9_-]+) -->/.exec(before.slice(opened))![1] : undefined;
    const rest = markdown.slice(match.index + match[0].length);
    const documented = example === undefined ? undefined : rest.slice(0, rest.indexOf("<!-- /example -->"));
    run.push({ file, line, lang, code: match[2]!, example, documented });
  }
  return { run, skipped };
}

const PAGES = ["README.md", "docs/api.md", "clients/typescript/README.md", "clients/python/README.md"];
const all = PAGES.flatMap((page) => programs(page).run);

function execute(program: Program, baseUrl: string, key: string, cwd: string): Promise<{ code: number | null; stdout: string; stderr: string }> {
  const runner = RUNNERS[program.lang]!;
  // tsx's own temp files go to the test's folder, removed with it.
  const env = { ...process.env, CEI_KEY: key, CEI_BASE_URL: baseUrl, PYTHONDONTWRITEBYTECODE: "1", TMPDIR: cwd };
  const child = spawn(runner.command, runner.args, { cwd: runner.inRepo ? REPO_DIR : cwd, env, stdio: ["pipe", "pipe", "pipe"] });
  let stdout = "";
  let stderr = "";
  child.stdout.setEncoding("utf8").on("data", (chunk: string) => (stdout += chunk));
  child.stderr.setEncoding("utf8").on("data", (chunk: string) => (stderr += chunk));
  child.stdin.end(program.code.replaceAll(DOCUMENTED_BASE, baseUrl));
  return new Promise((resolve, reject) => {
    child.once("error", reject);
    child.once("close", (code) => resolve({ code, stdout, stderr }));
  });
}

/** The status and body a shell example printed (`curl -i` prints the status line and headers first). */
function answerOf(stdout: string): { status: number | undefined; body: Record<string, unknown> } {
  if (!stdout.startsWith("HTTP/")) return { status: undefined, body: JSON.parse(stdout) as Record<string, unknown> };
  const split = stdout.indexOf("\r\n\r\n");
  return { status: Number(stdout.split(" ")[1]), body: JSON.parse(stdout.slice(split + 4)) as Record<string, unknown> };
}

/** What the page shows: the status (from the http block, or the envelope) and the body. */
function documentedAnswer(documented: string): { status: number | undefined; body: Record<string, unknown> } {
  const http = /```http\n(HTTP\/1\.1 (\d{3})[^\n]*)/.exec(documented);
  const json = /```json\n([\s\S]*?)\n```/.exec(documented)![1]!;
  return { status: http === null ? undefined : Number(http[2]), body: JSON.parse(json) as Record<string, unknown> };
}

/** Fields of an answer that depend on which key asked, not on the data: the key's own description. */
const callerFields: Record<string, string[]> = { get_key: ["id", "credits_remaining", "rate_limit"] };

let service: ExampleService;
let server: RunningServer;
let work: string;
beforeAll(async () => {
  work = mkdtempSync(join(tmpdir(), "cei-doc-programs-"));
  service = await openExampleService(join(work));
  server = await startServer(service.app, { port: 0, host: "127.0.0.1", snapshot: () => service.serving.contentHash });
}, 60_000);
afterAll(async () => {
  await server?.close();
  service?.close();
  rmSync(work, { recursive: true, force: true });
});

/** The key (and clock) each example's comment line asks for; every other program gets a pro key with 1,000 credits. */
async function prepare(example: string | undefined): Promise<{ key: string; restore(): void }> {
  const now = service.clock.now;
  const restore = () => void (service.clock.now = now);
  switch (example) {
    case "error-402":
      return { key: service.newKey("pro", 1), restore };
    case "error-403":
      return { key: service.newKey("pro", 100, ["projects"]), restore };
    case "error-429": {
      const key = service.newKey("free", 1_000);
      for (let i = 0; i < tierRateLimits.free; i++) await (await service.app.request("/v1/markets/snapshot", { headers: { authorization: `Bearer ${key}` } })).text();
      return { key, restore };
    }
    case "error-500":
      service.clock.now = EXAMPLES_AS_OF.getTime() + 7 * 3_600_000;
      return { key: service.newKey("pro", 1_000), restore };
    default:
      return { key: service.newKey("pro", 1_000), restore };
  }
}

it("finds the programs of both pages, and says why each block it does not run is not a program", () => {
  expect(all.filter((program) => program.file === "README.md").map((program) => program.lang).sort()).toEqual(["python", "python", "sh", "ts"]);
  expect(all.filter((program) => program.example !== undefined)).toHaveLength(33);
  const skipped = PAGES.flatMap((page) => programs(page).skipped);
  for (const { reason } of skipped) expect(reason.length).toBeGreaterThan(10);
});

describe.each(all.map((program) => [`${program.file}:${program.line} (${program.example ?? program.lang})`, program] as const))("%s", (_name, program) => {
  it("runs against a real server and answers as documented", async () => {
    const { key, restore } = await prepare(program.example);
    try {
      const { code, stdout, stderr } = await execute(program, server.url, key, work);
      expect(stderr, stdout).toBe("");
      expect(code).toBe(0);
      if (program.documented === undefined) return;
      const answer = answerOf(stdout);
      const shown = documentedAnswer(program.documented);
      expect(answer.status).toBe(shown.status);
      if ("error" in shown.body) {
        expect(answer.body.error).toEqual(shown.body.error);
      } else {
        const data = { ...(answer.body.data as object) } as Record<string, unknown>;
        const expected = { ...(shown.body.data as object) } as Record<string, unknown>;
        for (const field of callerFields[program.example!] ?? []) expected[field] = data[field];
        expect(data).toEqual(expected);
      }
    } finally {
      restore();
    }
  }, 30_000);
});
