// redactUrl: a meter location as it may be printed, in every form an operator may write one
// (input → exact output), and the real commands printing it without any secret: neither the URL's
// nor PGPASSWORD.
import { execFile } from "node:child_process";
import { describe, expect, it } from "vitest";
import { redactUrl } from "../../server/meter/open.ts";
import { CEI_BIN, REPO_ROOT } from "../_support/processes.ts";
import { fixtureSnapshot } from "../_support/server.ts";

const forms: ReadonlyArray<[string, string, string]> = [
  ["URL password", "postgres://cei:s3cret@db.example:5432/cei", "postgres://cei:***@db.example:5432/cei"],
  ["postgresql scheme, upper case", "POSTGRESQL://cei:s3cret@db/cei", "POSTGRESQL://cei:***@db/cei"],
  ["password holding @", "postgres://cei:PW@PW@db:5432/cei", "postgres://cei:***@db:5432/cei"],
  ["password holding : and /", "postgres://cei:p:w/x@db/cei", "postgres://cei:***@db/cei"],
  ["password holding ? and #", "postgres://cei:a?b#c@db/cei", "postgres://cei:***@db/cei"],
  ["password percent-encoded", "postgres://cei:p%40ss%3Aw@db/cei", "postgres://cei:***@db/cei"],
  ["empty password", "postgres://cei:@db/cei", "postgres://cei:***@db/cei"],
  ["user only", "postgres://cei@db/cei", "postgres://cei@db/cei"],
  ["user holding @, and a password", "postgres://me@corp:s3cret@db/cei", "postgres://me@corp:***@db/cei"],
  ["no userinfo", "postgres://db:5432/cei", "postgres://db:5432/cei"],
  ["password in the query", "postgres://cei@db/cei?password=s3cret", "postgres://cei@db/cei?password=***"],
  ["sslpassword beside paths (kept)", "postgres://db/cei?sslmode=require&sslpassword=k3y&sslkey=/etc/cei/k.pem&passfile=/etc/cei/pgpass",
    "postgres://db/cei?sslmode=require&sslpassword=***&sslkey=/etc/cei/k.pem&passfile=/etc/cei/pgpass"],
  ["query parameter name percent-encoded", "postgres://db/cei?pass%77ord=s3cret", "postgres://db/cei?pass%77ord=***"],
  ["@ in the query, no userinfo", "postgres://db/cei?application_name=a@b&password=s3cret", "postgres://db/cei?application_name=a@b&password=***"],
  ["@ in the query after a port: over-redacted, never leaked", "postgres://db:5432/cei?user=a@b&password=s3cret", "postgres://db:***@b&password=***"],
  ["both at once, with a fragment", "postgres://cei:s3cret@db/cei?password=other#x", "postgres://cei:***@db/cei?password=***#x"],
  ["keyword/value", "host=db user=cei password=s3cret dbname=cei", "host=db user=cei password=*** dbname=cei"],
  ["keyword/value, quoted and spaced", "host=db password='se cret\\' x' sslpassword = k3y", "host=db password=*** sslpassword = ***"],
  ["a SQLite file", "/var/lib/cei/meter.db", "/var/lib/cei/meter.db"],
];

describe("redactUrl", () => {
  it.each(forms)("%s", (_form, input, output) => {
    expect(redactUrl(input)).toBe(output);
    for (const secret of ["s3cret", "PW@PW", "p:w/x", "a?b#c", "p%40ss", "k3y", "se cret"]) expect(redactUrl(input)).not.toContain(secret);
  });
});

function serve(meter: string, snapshot: string): Promise<{ code: number; stderr: string }> {
  return new Promise((resolve) => {
    execFile(process.execPath, [CEI_BIN, "serve", "--snapshot", snapshot, "--meter", meter, "--port", "0"], {
      cwd: REPO_ROOT, env: { ...process.env, PGPASSWORD: "env-s3cret-PGPASSWORD" }, timeout: 30_000,
    }, (error, _stdout, stderr) => resolve({ code: error === null ? 0 : Number(error.code ?? 1), stderr }));
  });
}

it("cei serve names a meter it cannot open without its password, in the URL, the query or PGPASSWORD", async () => {
  const snapshot = await fixtureSnapshot();
  // Port 1 on the loopback: refused at once.
  const runs = await Promise.all([serve("postgres://cei:PW@s3cret@127.0.0.1:1/cei", snapshot), serve("postgres://cei@127.0.0.1:1/cei?password=s3cret", snapshot)]);
  expect(runs.map((run) => run.code)).toEqual([1, 1]);
  expect(runs[0]!.stderr).toMatch(/cannot open meter "postgres:\/\/cei:\*\*\*@127\.0\.0\.1:1\/cei": /);
  expect(runs[1]!.stderr).toMatch(/cannot open meter "postgres:\/\/cei@127\.0\.0\.1:1\/cei\?password=\*\*\*": /);
  for (const run of runs) {
    expect(run.stderr).not.toContain("s3cret");
    expect(run.stderr).not.toContain("env-s3cret-PGPASSWORD");
  }
}, 60_000);
