// Connections and time, through real sockets to real servers whose limits are set short through
// startServer's options: slow senders are cut off while others are served, the connection cap
// holds, and a graceful shutdown answers what is in flight and closes the rest; on both listeners.
import { readFileSync } from "node:fs";
import { afterEach, beforeAll, describe, expect, it, onTestFinished } from "vitest";
import { listenDefaults, parseListenLimits } from "../../server/listen-limits.ts";
import { startServer, type ListenOptions, type RunningServer } from "../../server/listen.ts";
import { startListhenServer } from "../../server/listen-listhen.ts";
import { createTestService, type TestService } from "../_support/server.ts";
import { connectionPool, RawConnection } from "../_support/raw-http.ts";

let service: TestService;
let key: string;
const pool = connectionPool();
beforeAll(async () => {
  service = await createTestService();
  key = service.newKey({ tier: "internal", credits: 1_000_000 }).key;
  return () => service.close();
});
afterEach(() => pool.destroyAll());

const listeners = [["node:http", startServer], ["listhen", startListhenServer]] as const;
let startListener: (app: TestService["app"], options: ListenOptions) => Promise<RunningServer> = startServer;

async function serverWith(options: ListenOptions): Promise<RunningServer> {
  const running = await startListener(service.app, { port: 0, host: "127.0.0.1", ...options });
  onTestFinished(() => running.close());
  return running;
}

const validRequest = () => `GET /v1/projects/aurora-swap HTTP/1.1\r\nHost: test\r\nAuthorization: Bearer ${key}\r\n\r\n`;

async function servedOver(running: RunningServer): Promise<number> {
  const response = await fetch(`${running.url}/v1/projects/aurora-swap`, { headers: { authorization: `Bearer ${key}` } });
  await response.arrayBuffer();
  return response.status;
}

/** Writes `data` one byte at a time every `everyMs` until the connection closes or `stop` is set. */
function dribble(connection: RawConnection, data: string, everyMs: number): { stop(): void } {
  let stopped = false;
  void (async () => {
    for (const byte of data) {
      if (stopped || connection.socket.destroyed) return;
      await connection.write(byte).catch(() => undefined);
      await new Promise((resolve) => setTimeout(resolve, everyMs));
    }
  })();
  return { stop: () => void (stopped = true) };
}

/** Both listeners keep the same limits: our node:http server, and listhen's (npm start). */
for (const [listener, start] of listeners) {
describe(listener, () => {
  beforeAll(() => void (startListener = start));

  describe("slow senders", () => {
    const limits = { headersTimeoutMs: 400, requestTimeoutMs: 800 };

    it("headers that never finish get a JSON request_timeout and the connection closed; others are served meanwhile", async () => {
      const running = await serverWith(limits);
      const slow = await pool.open(running.url);
      const sender = dribble(slow, `GET /v1/projects/aurora-swap HTTP/1.1\r\nHost: test\r\nX-Slow: ${"s".repeat(500)}`, 50);
      onTestFinished(() => sender.stop());
      const started = Date.now();
      expect(await servedOver(running)).toBe(200);
      const answer = await slow.nextResponse(3_000);
      if (answer === "closed") throw new Error("closed without the JSON answer");
      expect(answer.status).toBe(422);
      expect(answer.headers["cache-control"]).toBe("no-store");
      expect(JSON.parse(answer.body).error.details).toEqual([{ path: "request", code: "request_timeout", message: expect.any(String) }]);
      await slow.closed;
      expect(Date.now() - started).toBeLessThan(2_000);
    });

    it("a body sent one byte at a time is cut off at the request timeout; others are served meanwhile", async () => {
      const running = await serverWith(limits);
      const slow = await pool.open(running.url);
      await slow.write(`POST /v1/search HTTP/1.1\r\nHost: test\r\nAuthorization: Bearer ${key}\r\nContent-Type: application/json\r\nContent-Length: 200\r\n\r\n`);
      const sender = dribble(slow, `{"q":"${"b".repeat(190)}"}`, 100);
      onTestFinished(() => sender.stop());
      const started = Date.now();
      expect(await servedOver(running)).toBe(200);
      await slow.closed;
      expect(Date.now() - started).toBeLessThan(2_500);
      // Nothing, or a JSON answer: never a bare Node status line.
      expect(slow.pending() === "" || /^HTTP\/1\.1 422 .*application\/json/s.test(slow.pending())).toBe(true);
      expect(await servedOver(running)).toBe(200);
    });

    it("an idle keep-alive connection is closed after the keep-alive timeout", async () => {
      const running = await serverWith({ keepAliveTimeoutMs: 300 });
      const connection = await pool.open(running.url);
      await connection.write(validRequest());
      const answer = await connection.nextResponse();
      expect(answer !== "closed" && answer.status).toBe(200);
      const idleSince = Date.now();
      await connection.closed;
      expect(Date.now() - idleSince).toBeLessThan(2_000);
    });
  });

  describe("the connection cap", () => {
    it("closes connections beyond the cap while the accepted ones are served", async () => {
      const running = await serverWith({ maxConnections: 3 });
      const accepted = [await pool.open(running.url), await pool.open(running.url), await pool.open(running.url)];
      await expect.poll(() => new Promise((resolve) => running.server.getConnections((_, count) => resolve(count)))).toBe(3);
      const refused = await pool.open(running.url);
      await refused.write(validRequest()).catch(() => undefined);
      expect(await refused.nextResponse()).toBe("closed");
      for (const connection of accepted) {
        await connection.write(validRequest());
        const answer = await connection.nextResponse();
        expect(answer !== "closed" && answer.status).toBe(200);
      }
      accepted[0]!.destroy();
      await expect.poll(() => new Promise((resolve) => running.server.getConnections((_, count) => resolve(count)))).toBe(2);
      const next = await pool.open(running.url);
      await next.write(validRequest());
      const answer = await next.nextResponse();
      expect(answer !== "closed" && answer.status).toBe(200);
    });
  });

  describe("shutdown", () => {
    it("answers a request arriving on a kept-alive connection with Connection: close, closes idle ones, refuses new ones", async () => {
      const running = await serverWith({});
      const reused = await pool.open(running.url);
      const idle = await pool.open(running.url);
      for (const connection of [reused, idle]) {
        await connection.write(validRequest());
        expect(await connection.nextResponse()).toMatchObject({ status: 200, headers: { connection: "keep-alive" } });
      }
      const drained = running.shutdown(5_000);
      await reused.write(validRequest());
      expect(await reused.nextResponse()).toMatchObject({ status: 200, headers: { connection: "close" } });
      await Promise.all([reused.closed, idle.closed]);
      expect(await drained).toBe(true);
      await expect(RawConnection.open(running.url)).rejects.toThrow(/ECONNREFUSED/);
    });

    it("cuts connections still open at the bound and reports it", async () => {
      const running = await serverWith({});
      const stuck = await pool.open(running.url);
      await stuck.write("GET /v1/projects/aurora-swap HTTP/1.1\r\nHost: te");
      const started = Date.now();
      expect(await running.shutdown(300)).toBe(false);
      expect(Date.now() - started).toBeLessThan(2_000);
      await stuck.closed;
    });
  });
});
}

describe("the limits' defaults and options", () => {
  it("docs/operations.md states every default and option that the server applies", () => {
    const markdown = readFileSync(new URL("../../docs/operations.md", import.meta.url), "utf8");
    const afterMarker = markdown.slice(markdown.indexOf("<!-- listen-limits -->")).split("\n").slice(3);
    const table = afterMarker.slice(0, afterMarker.findIndex((line) => !line.startsWith("|")));
    const documented = Object.fromEntries(table.map((line) => {
      const [, , value, option] = line.split("|").map((cell) => cell.trim());
      return [/^`--([a-z-]+)/.exec(option!)![1]!, Number(value!.replace(/[^0-9]/g, ""))];
    }));
    expect(documented).toEqual({
      "headers-timeout": listenDefaults.headersTimeoutMs,
      "request-timeout": listenDefaults.requestTimeoutMs,
      "keep-alive-timeout": listenDefaults.keepAliveTimeoutMs,
      "max-connections": listenDefaults.maxConnections,
      "max-connections-per-address": listenDefaults.maxConnectionsPerAddress,
      "shutdown-timeout": listenDefaults.shutdownTimeoutMs,
    });
  });

  it("parses the cei serve options, and refuses what Node would not take", () => {
    expect(parseListenLimits({})).toEqual(listenDefaults);
    expect(parseListenLimits({ headersTimeout: "500", requestTimeout: "800", maxConnections: "3" })).toMatchObject({ headersTimeoutMs: 500, requestTimeoutMs: 800, maxConnections: 3 });
    expect(() => parseListenLimits({ maxConnections: "0" })).toThrow('--max-connections must be a whole number of at least 1, got "0"');
    expect(parseListenLimits({ maxConnectionsPerAddress: "512" }).maxConnectionsPerAddress).toBe(512);
    expect(() => parseListenLimits({ maxConnectionsPerAddress: "-1" })).toThrow('--max-connections-per-address must be a whole number of at least 1, got "-1"');
    expect(() => parseListenLimits({ keepAliveTimeout: "5s" })).toThrow("--keep-alive-timeout");
    expect(() => parseListenLimits({ headersTimeout: "40000" })).toThrow("--headers-timeout (40000) must not exceed --request-timeout (30000)");
  });
});
