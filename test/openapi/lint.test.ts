// docs/openapi.json (and the document with the hidden operation released) pass Redocly's
// recommended rules with no error and no warning (redocly.yaml), telemetry and update check off.
import { spawn } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, expect, it } from "vitest";
import { buildOpenApi } from "../../server/openapi/document.ts";

const REPO_DIR = fileURLToPath(new URL("../../", import.meta.url));
const work = mkdtempSync(join(tmpdir(), "cei-openapi-lint-"));
afterAll(() => rmSync(work, { recursive: true, force: true }));

interface LintReport { totals: { errors: number; warnings: number; ignored: number }; problems: Array<{ ruleId: string; message: string }> }

function lint(file: string): Promise<{ code: number | null; report: LintReport; stderr: string }> {
  const child = spawn(process.execPath, ["node_modules/@redocly/cli/bin/cli.js", "lint", file, "--config", "redocly.yaml", "--format", "json"], {
    cwd: REPO_DIR,
    env: { ...process.env, REDOCLY_TELEMETRY: "off", REDOCLY_SUPPRESS_UPDATE_NOTICE: "true", REDOCLY_SUPPRESS_NOTIFICATIONS: "true" },
    stdio: ["ignore", "pipe", "pipe"],
  });
  let stdout = "";
  let stderr = "";
  child.stdout.setEncoding("utf8").on("data", (chunk: string) => (stdout += chunk));
  child.stderr.setEncoding("utf8").on("data", (chunk: string) => (stderr += chunk));
  return new Promise((resolve) => child.once("close", (code) => resolve({ code, report: JSON.parse(stdout) as LintReport, stderr })));
}

it("docs/openapi.json: no error, no warning, nothing ignored", async () => {
  const { code, report, stderr } = await lint("docs/openapi.json");
  expect(report.problems.map((problem) => `${problem.ruleId}: ${problem.message}`)).toEqual([]);
  expect(report.totals).toEqual({ errors: 0, warnings: 0, ignored: 0 });
  expect(code, stderr).toBe(0);
});

it("the document with trending projects released: no error, no warning", async () => {
  const file = join(work, "released.json");
  writeFileSync(file, JSON.stringify(buildOpenApi({ releaseTrendingProjects: true, examples: {} }), null, 2));
  const { code, report } = await lint(file);
  expect(report.problems.map((problem) => `${problem.ruleId}: ${problem.message}`)).toEqual([]);
  expect(code).toBe(0);
});
