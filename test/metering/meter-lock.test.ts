// Another process holding the meter's write lock (9.6): answers that need no lock are not delayed,
// metered requests answer 500 within METER_WAIT_LIMIT_MS with nothing charged, and service resumes
// once the lock is released.
import { spawn, type ChildProcess } from "node:child_process";
import { createInterface } from "node:readline";
import { afterAll, beforeAll, expect, it } from "vitest";
import { METER_WAIT_LIMIT_MS } from "../../server/meter/interface.ts";
import { REPO_ROOT } from "../_support/processes.ts";
import { startMeteredServer, type MeteredServer } from "./_http.ts";

let server: MeteredServer;
beforeAll(async () => {
  server = await startMeteredServer();
});
afterAll(() => server.close());

/** A second process that takes the write lock and holds it until told to commit on stdin. */
async function holdWriteLock(file: string): Promise<{ child: ChildProcess; release(): Promise<void> }> {
  const script = `
    const Database = require("better-sqlite3");
    const db = new Database(${JSON.stringify(file)});
    db.prepare("BEGIN IMMEDIATE").run();
    console.log("locked");
    process.stdin.once("data", () => { db.prepare("COMMIT").run(); db.close(); process.exit(0); });`;
  const child = spawn(process.execPath, ["-e", script], { cwd: REPO_ROOT, stdio: ["pipe", "pipe", "inherit"] });
  const exited = new Promise<void>((resolve) => child.once("exit", () => resolve()));
  await new Promise<void>((resolve, reject) => {
    child.once("exit", (code) => reject(new Error(`lock holder exited with ${code}`)));
    createInterface({ input: child.stdout! }).once("line", () => resolve());
  });
  return {
    child,
    async release() {
      child.stdin!.end("commit\n");
      await exited;
    },
  };
}

it("while another process holds the lock: 401 and a cached key's 403 at once, metered requests 500 within the bound, nothing charged", async () => {
  const active = await server.newKey({ credits: 10 });
  const disabled = await server.newKey();
  await server.disableKey(disabled.id);
  // Both keys are looked up once, so the 403 comes from the cache.
  expect((await server.call("GET", "/v1/key", { key: active.key })).status).toBe(200);
  expect((await server.call("GET", "/v1/key", { key: disabled.key })).status).toBe(403);
  const before = await server.view.state();

  const holder = await holdWriteLock(server.meterLocation);
  const silenced = console.error;
  console.error = () => undefined;
  try {
    const metered = (async () => {
      const started = performance.now();
      const res = await server.call("GET", "/v1/events/berlin-node-day", { key: active.key });
      return { res, ms: performance.now() - started };
    })();
    const timed = async (key: string | null) => {
      const started = performance.now();
      const res = await server.call("GET", "/v1/events/berlin-node-day", { key });
      return { status: res.status, ms: performance.now() - started };
    };
    const unknown = await timed("cei_" + "q".repeat(40));
    const refused = await timed(disabled.key);
    expect(unknown.status).toBe(401);
    expect(refused.status).toBe(403);
    // Far below the lock's hold and the meter's wait: these never queue behind the lock.
    expect(unknown.ms).toBeLessThan(METER_WAIT_LIMIT_MS / 4);
    expect(refused.ms).toBeLessThan(METER_WAIT_LIMIT_MS / 4);

    const { res, ms } = await metered;
    expect(res.status).toBe(500);
    expect(res.body.error).toEqual({ code: "INTERNAL_ERROR", message: "The request could not be completed." });
    expect(res.body.meta.credits_used).toBe(0);
    expect(ms).toBeGreaterThanOrEqual(METER_WAIT_LIMIT_MS - 50);
    expect(ms).toBeLessThan(METER_WAIT_LIMIT_MS + 1_500);
  } finally {
    console.error = silenced;
    await holder.release();
  }
  expect(await server.view.state()).toEqual(before);
  const resumed = await server.call("GET", "/v1/events/berlin-node-day", { key: active.key });
  expect(resumed.status).toBe(200);
  expect(resumed.body.meta).toMatchObject({ credits_used: 1, credits_remaining: 9 });
});
