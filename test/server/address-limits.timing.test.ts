// No client holds the service alone: through real sockets to real servers, the connections of one
// peer address are capped (on both listeners and the metrics listener), a socket that sends no
// whole header is closed at the header deadline, a slowloris from one address leaves another
// address served at its usual latency, and behind a trusted proxy the client is X-Forwarded-For's
// last untrusted hop. Loopback is all of 127.0.0.0/8: the attacker is 127.0.0.1, the others
// 127.0.0.2 and 127.0.0.3, bound with `localAddress`.
import type { IncomingMessage } from "node:http";
import { afterEach, beforeAll, describe, expect, it, onTestFinished } from "vitest";
import { clientAddress, connectionsOf, parseTrustedProxies } from "../../server/address-limits.ts";
import { listenDefaults } from "../../server/listen-limits.ts";
import { createLogger } from "../../server/log.ts";
import { listenerLog } from "../../server/observe.ts";
import { startServer, type ListenOptions, type RunningServer } from "../../server/listen.ts";
import { startListhenServer } from "../../server/listen-listhen.ts";
import { Metrics } from "../../server/metrics.ts";
import { startMetricsServer } from "../../server/metrics-listen.ts";
import { createTestService, type TestService } from "../_support/server.ts";
import { pairedRounds, sequentialRun, startAttacker, timedGet } from "./_load-clients.ts";
import { connectionPool, RawConnection } from "../_support/raw-http.ts";

const ATTACKER = "127.0.0.1";
const VICTIM = "127.0.0.2";
const OTHER = "127.0.0.3";

let service: TestService;
let key: string;
const pool = connectionPool();
beforeAll(async () => {
  service = await createTestService();
  key = service.newKey({ tier: "internal", credits: 10_000_000 }).key;
  return () => service.close();
});
afterEach(() => pool.destroyAll());

/** The connections the server serves (not the sockets it holds unread before closing them). */
const openConnections = (running: { server: RunningServer["server"] }) => Promise.resolve(connectionsOf(running.server).live);

async function victimRun(url: string, count: number) {
  return sequentialRun(count, () => timedGet(url, "/v1/projects/aurora-swap", VICTIM, { authorization: `Bearer ${key}` }));
}

describe("a slowloris from one address", () => {
  it("leaves another address served: every request answered, p99 within 2x of its p99 alone", { timeout: 60_000 }, async () => {
    const running = await startServer(service.app, { port: 0, host: "127.0.0.1" });
    onTestFinished(() => running.close());
    await victimRun(running.url, 30);
    const attack = await startAttacker<{ connects: number; closes: number }>("./_slowloris.mjs", [new URL(running.url).port, 1_100, ATTACKER]);
    // Each round past the attack's start: the cap has been reached and the attacker is reopening what it loses.
    const { alone, attacked } = await pairedRounds(attack, () => victimRun(running.url, 200), 5);
    const held = await openConnections(running);
    const { connects, closes } = await attack.stop();

    expect(attacked.statuses.every((status) => status === 200)).toBe(true);
    expect(held).toBeLessThanOrEqual(listenDefaults.maxConnectionsPerAddress + 1);
    // The attacker did try: every socket past the cap was closed, and reopened.
    expect(closes).toBeGreaterThanOrEqual(1_100 - listenDefaults.maxConnectionsPerAddress);
    expect(connects).toBeGreaterThan(1_100);
    console.log(`slowloris: victim p50 ${alone.p50.toFixed(2)} -> ${attacked.p50.toFixed(2)} ms, p99 ${alone.p99.toFixed(2)} -> ${attacked.p99.toFixed(2)} ms; attacker ${connects} connects, ${closes} closed`);
    expect(attacked.p99).toBeLessThan(2 * Math.max(alone.p99, 1));
  });
});

const listeners = [["node:http", startServer], ["listhen", startListhenServer]] as const;

const validRequest = () => `GET /v1/projects/aurora-swap HTTP/1.1\r\nHost: test\r\nAuthorization: Bearer ${key}\r\n\r\n`;

async function expectServed(url: string, localAddress: string): Promise<void> {
  const connection = await pool.open(url, localAddress);
  await connection.write(validRequest());
  const answer = await connection.nextResponse();
  expect(answer !== "closed" && answer.status).toBe(200);
}

for (const [listener, start] of listeners) {
  describe(`${listener}: the cap per address`, () => {
    async function serverWith(options: ListenOptions): Promise<RunningServer> {
      const running = await start(service.app, { port: 0, host: "127.0.0.1", ...options });
      onTestFinished(() => running.close());
      return running;
    }

    it("closes the 65th connection from one address while another address connects and is served", async () => {
      const running = await serverWith({});
      const held: RawConnection[] = [];
      for (let i = 0; i < listenDefaults.maxConnectionsPerAddress; i++) held.push(await pool.open(running.url, ATTACKER));
      await expect.poll(() => openConnections(running)).toBe(listenDefaults.maxConnectionsPerAddress);
      const refused = await pool.open(running.url, ATTACKER);
      await refused.write(validRequest()).catch(() => undefined);
      expect(await refused.nextResponse()).toBe("closed");
      await expectServed(running.url, VICTIM);
      // The held ones are served, and a place given back is a place for the same address again.
      await held[0]!.write(validRequest());
      expect(await held[0]!.nextResponse()).toMatchObject({ status: 200 });
      held[1]!.destroy();
      await expect.poll(() => openConnections(running)).toBe(listenDefaults.maxConnectionsPerAddress);
      await expectServed(running.url, ATTACKER);
    });

    it("closes a socket that sends nothing, and one that sends half a header, at the header deadline", async () => {
      const running = await serverWith({ headersTimeoutMs: 300, requestTimeoutMs: 600 });
      const started = Date.now();
      const silent = await pool.open(running.url, ATTACKER);
      const half = await pool.open(running.url, ATTACKER);
      await half.write("GET / HTTP/1.1\r\nHost: x\r\n");
      await Promise.all([silent.closed, half.closed]);
      expect(Date.now() - started).toBeLessThan(1_500);
      expect(silent.pending()).toBe("");
      expect(half.pending()).toMatch(/^HTTP\/1\.1 422 /);
    });
  });
}

describe("the metrics listener", () => {
  it("keeps the same cap per address and header deadline", async () => {
    const metrics = new Metrics();
    const listener = await startMetricsServer(metrics, { maxConnectionsPerAddress: 2, headersTimeoutMs: 300, requestTimeoutMs: 600 });
    onTestFinished(() => listener.close());
    const first = await pool.open(listener.url, ATTACKER);
    await pool.open(listener.url, ATTACKER);
    await expect.poll(() => openConnections(listener)).toBe(2);
    const refused = await pool.open(listener.url, ATTACKER);
    expect(await refused.nextResponse()).toBe("closed");
    const scrape = await timedGet(listener.url, "/metrics", VICTIM);
    expect(scrape.status).toBe(200);
    const started = Date.now();
    await first.closed;
    expect(Date.now() - started).toBeLessThan(1_500);
  });
});

describe("behind a trusted proxy", () => {
  const trusted = parseTrustedProxies(["127.0.0.2", "10.0.0.0/8,fd00::/8"]).list;
  const from = (peer: string, forwarded?: string) =>
    clientAddress({ socket: { remoteAddress: peer }, headers: forwarded === undefined ? {} : { "x-forwarded-for": forwarded } } as unknown as IncomingMessage, trusted);

  it("takes X-Forwarded-For's last untrusted hop, and believes no header from an untrusted peer", () => {
    expect(from("127.0.0.2", "203.0.113.7")).toBe("203.0.113.7");
    // The client wrote the first hop itself; the proxies appended the rest.
    expect(from("127.0.0.2", "198.51.100.1, 203.0.113.7, 10.1.2.3")).toBe("203.0.113.7");
    expect(from("::ffff:127.0.0.2", "203.0.113.7,fd00::5")).toBe("203.0.113.7");
    expect(from("127.0.0.2", "10.0.0.1, 10.0.0.2")).toBe("10.0.0.1");
    expect(from("127.0.0.2", "not-an-address, 203.0.113.7")).toBe("203.0.113.7");
    expect(from("127.0.0.2", "203.0.113.7, garbage")).toBe("127.0.0.2");
    expect(from("127.0.0.2")).toBe("127.0.0.2");
    expect(from("127.0.0.3", "203.0.113.7")).toBe("127.0.0.3");
  });

  it("logs the client it found: the forwarded hop from the trusted proxy, the peer otherwise", async () => {
    const lines: Array<Record<string, unknown>> = [];
    const logger = createLogger("info", { write: (line: string) => void lines.push(JSON.parse(line) as Record<string, unknown>) });
    const logged = await createTestService({ logger });
    onTestFinished(() => logged.close());
    const running = await startServer(logged.app, { port: 0, host: "127.0.0.1", trustProxy: trusted, onListenerAnswer: listenerLog(logger, undefined) });
    onTestFinished(() => running.close());
    const forwarded = { "x-forwarded-for": "198.51.100.1, 203.0.113.7" };
    for (const [from, headers] of [[VICTIM, forwarded], [OTHER, forwarded], [VICTIM, {}]] as const) {
      expect((await timedGet(running.url, "/healthz", from, headers)).status).toBe(200);
    }
    const missingHost = await pool.open(running.url, VICTIM);
    await missingHost.write("GET /healthz HTTP/1.1\r\nX-Forwarded-For: 203.0.113.8\r\n\r\n");
    expect(await missingHost.nextResponse()).toMatchObject({ status: 422 });
    const clients = lines.filter((line) => line.msg === "request").map((line) => [line.operation, line.client]);
    expect(clients).toEqual([["healthz", "203.0.113.7"], ["healthz", OTHER], ["healthz", VICTIM], ["listener", "203.0.113.8"]]);
  });

  it("refuses a --trust-proxy that is not an address or a range", () => {
    for (const bad of ["proxy.local", "10.0.0.0/33", "10.0.0.1/8/1", "fd00::/129", "1.2.3"]) {
      expect(() => parseTrustedProxies([bad]), bad).toThrow(`--trust-proxy must be an IP address or a CIDR range such as 10.0.0.0/8, got "${bad}"`);
    }
  });
});
