// The kit's systemd unit (deploy/systemd/cei-reader@.service). systemd cannot run here (no init in
// this container, and a test must not install services), so what can be checked is checked:
// `systemd-analyze verify` (Debian's systemd package; .ci/run installs it when missing) parses the
// unit as systemd would and reports nothing but the cei command not being installed on this
// machine; and the unit says what the operations doc promises: its own user, reload by SIGHUP, a
// stop timeout above the drain, secrets from credential files only, and the serve options cei takes.
import { execFile } from "node:child_process";
import { copyFileSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { promisify } from "node:util";
import { expect, it } from "vitest";
import { cei, REPO_ROOT } from "../_support/processes.ts";
import { testTempDir } from "../_support/temp.ts";

const UNIT = join(REPO_ROOT, "deploy/systemd/cei-reader@.service");

/** Every `Key=value` of a section, continuation lines joined. */
function section(text: string, name: string): Array<[string, string]> {
  const body = text.split(/^\[/m).find((part) => part.startsWith(`${name}]`))!;
  return body.replace(/\\\n\s*/g, " ").split("\n").filter((line) => /^[A-Za-z]+=/.test(line)).map((line) => {
    const at = line.indexOf("=");
    return [line.slice(0, at), line.slice(at + 1).trim()];
  });
}

it("systemd-analyze verify finds nothing wrong but the cei command missing from this machine", async () => {
  const dir = testTempDir("cei-systemd-");
  // An instance's name, as `systemctl enable cei-reader@1` would load it.
  copyFileSync(UNIT, join(dir, "cei-reader@1.service"));
  let output: string;
  try {
    const result = await promisify(execFile)("systemd-analyze", ["verify", "--man=no", join(dir, "cei-reader@1.service")], { cwd: dir });
    output = result.stdout + result.stderr;
  } catch (error) {
    const failed = error as NodeJS.ErrnoException & { stdout?: string; stderr?: string };
    if (failed.code === "ENOENT") throw new Error("systemd-analyze is not installed: run `apt-get install -y systemd` (.ci/run does) to check the kit's unit");
    output = `${failed.stdout ?? ""}${failed.stderr ?? ""}`;
  }
  const problems = output.split("\n").filter((line) => line.trim() !== "" && !/Command \/usr\/local\/bin\/cei is not executable/.test(line));
  expect(problems).toEqual([]);
});

it("runs as its own user, reloads by SIGHUP, stops after the drain, and takes secrets from credential files only", async () => {
  const text = readFileSync(UNIT, "utf8");
  const service = section(text, "Service");
  const value = (key: string) => service.filter(([name]) => name === key).map(([, v]) => v);
  expect(value("User")).toEqual(["cei"]);
  expect(value("ExecReload")).toEqual(["/bin/kill -HUP $MAINPID"]);
  expect(value("KillSignal")).toEqual(["SIGTERM"]);
  const execStart = value("ExecStart")[0]!;
  const drainMs = Number(/--shutdown-timeout (\d+)/.exec(execStart)![1]);
  expect(Number(value("TimeoutStopSec")[0]) * 1000).toBeGreaterThan(drainMs);
  // Secrets: credential files, never in the unit, its environment or the command line.
  expect(value("LoadCredential").map((line) => line.split(":")[0])).toEqual(["pgpass", "x-secret"]);
  expect(execStart).toContain("--x-secret-file %d/x-secret");
  expect(value("Environment")).toEqual(["PGPASSFILE=%d/pgpass"]);
  expect(text).not.toMatch(/password=|PGPASSWORD|CEI_X_SECRET/i);

  // Every option of ExecStart is one `cei serve` takes.
  const options = [...execStart.matchAll(/(--[a-z-]+)/g)].map((match) => match[1]!);
  const help = await cei(["serve", "--help"]);
  for (const option of options) expect(help, option).toContain(option);
});
