// The structured log (server/log.ts, server/observe.ts): one JSON line per request over a real
// HTTP server, built from what the pipeline knew (key id, never the secret; the error code; the
// credits charged; the snapshot), listener answers, unexpected errors with their request id,
// serving's swap and refusal lines, and the level that silences the request lines.
import { copyFileSync, existsSync, readFileSync, renameSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, it, vi } from "vitest";
import { startServer, type RunningServer } from "../../server/listen.ts";
import { asyncDestination, createLogger, isoTimeOncePerMillisecond, type LogLevel } from "../../server/log.ts";
import { Serving } from "../../server/serving.ts";
import { listenerLog, servingLog } from "../../server/observe.ts";
import { operationPolicy } from "../../server/policy.ts";
import { createTestService, startTestServer, type TestService } from "../_support/server.ts";
import { testTempDir } from "../_support/temp.ts";
import { RawConnection } from "../_support/raw-http.ts";

type Line = Record<string, unknown>;

const cleanup: Array<() => unknown> = [];
afterEach(async () => {
  for (const step of cleanup.splice(0).reverse()) await step();
});

/** A service whose log lines are parsed as they are written, and a real listener in front of it. */
async function loggedService(level: LogLevel = "info"): Promise<{ service: TestService; running: RunningServer; lines: Line[] }> {
  const lines: Line[] = [];
  const logger = createLogger(level, { write: (line: string) => void lines.push(JSON.parse(line) as Line) });
  const service = await createTestService({ logger });
  cleanup.push(() => service.close());
  const running = await startTestServer(service.app, service.serving);
  cleanup.push(() => running.close());
  return { service, running, lines };
}

const requests = (lines: Line[]) => lines.filter((line) => line.msg === "request");

describe("one line per request", () => {
  it("names the request id, key id, operation, status, credits, duration and snapshot, and never the secret", async () => {
    const { service, running, lines } = await loggedService();
    const { id, key } = service.newKey({ credits: 100 });
    const response = await fetch(`${running.url}/v1/projects/aurora-swap`, { headers: { authorization: `Bearer ${key}` } });
    expect(response.status).toBe(200);
    await response.text();
    const [line, ...more] = requests(lines);
    expect(more).toEqual([]);
    expect(line).toMatchObject({
      level: 30,
      request_id: response.headers.get("x-service-request-id"),
      key_id: id,
      operation: "get_project",
      status: 200,
      credits_used: operationPolicy.get_project.cost,
      snapshot: response.headers.get("x-service-snapshot"),
    });
    expect(line).not.toHaveProperty("code");
    expect(Number.isInteger(line!.duration_us) && (line!.duration_us as number) > 0).toBe(true);
    expect(Date.parse(line!.time as string)).not.toBeNaN();
    expect(JSON.stringify(lines)).not.toContain(key);
  });

  it("gives the error code of a refusal, without a key id when the key is unknown", async () => {
    const { running, lines } = await loggedService();
    const response = await fetch(`${running.url}/v1/projects/aurora-swap`, { headers: { authorization: "Bearer not-a-key" } });
    expect(response.status).toBe(401);
    expect(requests(lines)).toEqual([
      expect.objectContaining({ request_id: response.headers.get("x-service-request-id"), operation: "get_project", status: 401, code: "INVALID_API_KEY", credits_used: 0 }),
    ]);
    expect(requests(lines)[0]).not.toHaveProperty("key_id");
  });

  it("names paths without a route 'unmatched', health 'healthz', and the reference pages 'reference'", async () => {
    const { service, running, lines } = await loggedService();
    const { key } = service.newKey();
    const answers = await Promise.all(
      ["/v1/nowhere", "/healthz", "/openapi.json", "/metrics"].map((path) => fetch(running.url + path, { headers: { authorization: `Bearer ${key}` } })),
    );
    expect(answers.map((answer) => answer.status)).toEqual([404, 200, 200, 404]);
    const byId = new Map(requests(lines).map((line) => [line.request_id, line]));
    expect(answers.map((answer) => byId.get(answer.headers.get("x-service-request-id"))?.operation)).toEqual(["unmatched", "healthz", "reference", "unmatched"]);
  });

  it("logs the listener's own answers with their reason", async () => {
    const lines: Line[] = [];
    const logger = createLogger("info", { write: (line: string) => void lines.push(JSON.parse(line) as Line) });
    const service = await createTestService({ logger });
    cleanup.push(() => service.close());
    const running = await startServer(service.app, { port: 0, host: "127.0.0.1", onListenerAnswer: listenerLog(logger, undefined) });
    cleanup.push(() => running.close());
    const connection = await RawConnection.open(running.url);
    connection.socket.write("GET /healthz HTTP/1.1\r\n\r\n");
    const answer = await connection.nextResponse();
    if (answer === "closed") throw new Error("closed without an answer");
    expect(answer.status).toBe(422);
    expect(requests(lines)).toEqual([
      expect.objectContaining({ request_id: answer.headers["x-service-request-id"], operation: "listener", status: 422, reason: "missing_host" }),
    ]);
  });

  it("at level warn writes no request line", async () => {
    const { service, running, lines } = await loggedService("warn");
    const { key } = service.newKey();
    const response = await fetch(`${running.url}/v1/projects/aurora-swap`, { headers: { authorization: `Bearer ${key}` } });
    expect(response.status).toBe(200);
    expect(requests(lines)).toEqual([]);
  });
});

describe("unexpected errors and serving's lines", () => {
  it("logs an unexpected error at level error with the request id it was answered with", async () => {
    const { service, running, lines } = await loggedService("error");
    const { key } = service.newKey();
    service.meter.close();
    const response = await fetch(`${running.url}/v1/projects/aurora-swap`, { headers: { authorization: `Bearer ${key}` } });
    expect(response.status).toBe(500);
    expect(lines).toEqual([
      expect.objectContaining({
        level: 50, msg: "unexpected error", request_id: response.headers.get("x-service-request-id"), operation: "get_project",
        err: expect.objectContaining({ message: expect.stringMatching(/not open/) }),
      }),
    ]);
  });

  it("logs a refused snapshot at warn and a swap at info, with their fields", async () => {
    const { service } = await loggedService();
    const dir = testTempDir("cei-logs-");
    const garbage = join(dir, "garbage.db");
    writeFileSync(garbage, "not a database");
    // The served file itself is shared by this test file: swap a copy, not it.
    const served = join(dir, "served.db");
    copyFileSync(service.serving.file, served);
    const own: Line[] = [];
    const serving = await Serving.open(served, { now: () => service.clock.now, log: servingLog(createLogger("info", { write: (line: string) => void own.push(JSON.parse(line) as Line) }), undefined) });
    cleanup.push(() => serving.close());
    renameSync(garbage, served);
    expect(await serving.swap()).toBe("refused");
    expect(own.at(-1)).toMatchObject({ level: 40, event: "snapshot_refused", file: served, reason: "it is not a SQLite database", snapshot: service.serving.contentHash });
    copyFileSync(service.serving.file, join(dir, "next.db"));
    renameSync(join(dir, "next.db"), served);
    expect(await serving.swap()).toBe("swapped");
    expect(own.at(-1)).toMatchObject({ level: 30, event: "snapshot_swapped", file: served, snapshot: service.serving.contentHash, previous: service.serving.contentHash });
  });
});

describe("the service log's destination and clock", () => {
  it("writes every line in order: gathered into batches, written out whole by flush", async () => {
    const file = join(testTempDir("cei-log-destination-"), "service.log");
    const destination = asyncDestination(file);
    const line = (i: number) => `${JSON.stringify({ i, padding: "x".repeat(80) })}\n`;
    for (let i = 0; i < 3; i++) destination.write(line(i));
    // Three short lines stay gathered (under one batch) until a flush ...
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(existsSync(file) ? readFileSync(file, "utf8") : "").toBe("");
    // ... a few batches' worth are written without one ...
    for (let i = 3; i < 200; i++) destination.write(line(i));
    await expect.poll(() => readFileSync(file, "utf8").length, { timeout: 2_000 }).toBeGreaterThan(4096);
    // ... and flush writes out the rest before it resolves.
    await destination.flush();
    expect(readFileSync(file, "utf8")).toBe(Array.from({ length: 200 }, (_, i) => line(i)).join(""));
  });

  it("times a line with the ISO time of its millisecond, formatted once per millisecond", () => {
    vi.useFakeTimers({ now: Date.UTC(2026, 10, 25, 10, 0, 0, 123) });
    try {
      const first = isoTimeOncePerMillisecond();
      expect(first).toBe(',"time":"2026-11-25T10:00:00.123Z"');
      expect(isoTimeOncePerMillisecond()).toBe(first);
      vi.advanceTimersByTime(1);
      expect(isoTimeOncePerMillisecond()).toBe(',"time":"2026-11-25T10:00:00.124Z"');
    } finally {
      vi.useRealTimers();
    }
  });
});
