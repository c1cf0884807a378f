// The public reference paths (/docs*, /openapi.json) are limited per client: a token bucket by the
// client's address (behind a trusted proxy, X-Forwarded-For's last untrusted hop) answered past its
// end by 429 RATE_LIMITED with Retry-After; health and readiness are not limited. A flood of the
// reference page's assets from one address leaves another client's requests at their usual
// latency. Real servers on ephemeral ports; the flood is its own process (_flood.mjs).
import { Agent } from "node:http";
import { afterEach, beforeAll, describe, expect, it, onTestFinished } from "vitest";
import { AddressBuckets, parseTrustedProxies } from "../../server/address-limits.ts";
import { anyErrorEnvelope } from "../../server/envelope.ts";
import { startServer, type ListenOptions, type RunningServer } from "../../server/listen.ts";
import { startListhenServer } from "../../server/listen-listhen.ts";
import { createTestService, type TestService } from "../_support/server.ts";
import { pairedRounds, sequentialRun, startAttacker, timedGet } from "./_load-clients.ts";
import { connectionPool } from "../_support/raw-http.ts";

const FLOODER = "127.0.0.1";
const VICTIM = "127.0.0.2";
const PROXY = "127.0.0.3";

let service: TestService;
let key: string;
const pool = connectionPool();
beforeAll(async () => {
  service = await createTestService();
  key = service.newKey({ tier: "internal", credits: 10_000_000 }).key;
  return () => service.close();
});
afterEach(() => pool.destroyAll());

async function get(url: string, path: string, localAddress: string, headers: Record<string, string> = {}) {
  const connection = await pool.open(url, localAddress);
  const head = Object.entries(headers).map(([name, value]) => `${name}: ${value}\r\n`).join("");
  await connection.write(`GET ${path} HTTP/1.1\r\nHost: test\r\n${head}\r\n`);
  const answer = await connection.nextResponse();
  if (answer === "closed") throw new Error(`${path}: closed without an answer`);
  return answer;
}

describe("the bucket", () => {
  it("gives a burst, then one token per 1/perSecond, and says when the next one is due", () => {
    const clock = { now: 0 };
    const buckets = new AddressBuckets({ burst: 3, perSecond: 0.5 }, () => clock.now);
    for (let i = 0; i < 3; i++) expect(buckets.take("a")).toEqual({ ok: true });
    expect(buckets.take("a")).toEqual({ ok: false, retryAfterS: 2 });
    expect(buckets.take("b")).toEqual({ ok: true });
    clock.now = 1_500;
    expect(buckets.take("a")).toEqual({ ok: false, retryAfterS: 1 });
    clock.now = 2_000;
    expect(buckets.take("a")).toEqual({ ok: true });
    clock.now = 1_000_000;
    for (let i = 0; i < 3; i++) expect(buckets.take("a")).toEqual({ ok: true });
    expect(buckets.take("a").ok).toBe(false);
  });
});

for (const [listener, start] of [["node:http", startServer], ["listhen", startListhenServer]] as const) {
  describe(`${listener}: the public paths per client`, () => {
    async function serverWith(options: ListenOptions): Promise<RunningServer> {
      const running = await start(service.app, { port: 0, host: "127.0.0.1", snapshot: () => service.serving.contentHash, ...options });
      onTestFinished(() => running.close());
      return running;
    }

    it("answers 429 RATE_LIMITED with Retry-After past the burst, to that address only; health is not limited", async () => {
      const running = await serverWith({ publicBucket: { burst: 3, perSecond: 0.25, refusalDelayMs: 20 } });
      for (const path of ["/docs", "/openapi.json", "/docs/"]) expect((await get(running.url, path, FLOODER)).status).toBe(200);
      const refused = await get(running.url, "/openapi.json?x=1", FLOODER);
      expect(refused.status).toBe(429);
      expect(refused.headers["retry-after"]).toBe("4");
      expect(refused.headers["cache-control"]).toBe("no-store");
      expect(refused.headers["x-service-credits-used"]).toBe("0");
      expect(refused.headers["x-service-snapshot"]).toBe(service.serving.contentHash);
      expect(refused.headers.connection).not.toBe("close");
      const body = anyErrorEnvelope.parse(JSON.parse(refused.body));
      expect(body).toEqual({
        error: { code: "RATE_LIMITED", message: "Rate limit exceeded; retry after the time given in Retry-After." },
        meta: { request_id: refused.headers["x-service-request-id"], credits_used: 0 },
      });
      expect((await get(running.url, "/docs/anything", FLOODER)).status).toBe(429);
      expect((await get(running.url, "/healthz", FLOODER)).status).toBe(200);
      expect((await get(running.url, "/readyz", FLOODER)).status).toBe(200);
      expect((await get(running.url, "/v1/projects/aurora-swap", FLOODER, { authorization: `Bearer ${key}` })).status).toBe(200);
      expect((await get(running.url, "/docs", VICTIM)).status).toBe(200);
    });

    it("behind a trusted proxy, counts each forwarded client apart; an untrusted peer's header changes nothing", async () => {
      const running = await serverWith({ publicBucket: { burst: 2, perSecond: 0.1, refusalDelayMs: 20 }, trustProxy: parseTrustedProxies([PROXY]).list });
      const via = (client: string) => ({ "x-forwarded-for": `198.51.100.9, ${client}` });
      for (let i = 0; i < 2; i++) expect((await get(running.url, "/docs", PROXY, via("203.0.113.1"))).status).toBe(200);
      expect((await get(running.url, "/docs", PROXY, via("203.0.113.1"))).status).toBe(429);
      expect((await get(running.url, "/docs", PROXY, via("203.0.113.2"))).status).toBe(200);
      // A client that is not the proxy cannot pose as many by writing the header itself.
      for (let i = 0; i < 2; i++) expect((await get(running.url, "/docs", FLOODER, via(`203.0.113.${10 + i}`))).status).toBe(200);
      expect((await get(running.url, "/docs", FLOODER, via("203.0.113.99"))).status).toBe(429);
    });
  });
}

describe("a flood of the reference page's assets from one address", () => {
  it("leaves another client's get_project p50 within 1.5x of alone, and p99 within 2x", { timeout: 60_000 }, async () => {
    const running = await startServer(service.app, { port: 0, host: "127.0.0.1" });
    onTestFinished(() => running.close());
    const html = (await get(running.url, "/docs", VICTIM)).body;
    const bundle = /src="(\/docs\/redoc\.standalone\.[0-9a-f]{16}\.js)"/.exec(html)![1]!;
    const agent = new Agent({ keepAlive: true, maxSockets: 1, localAddress: VICTIM });
    onTestFinished(() => agent.destroy());
    const victim = () => sequentialRun(300, () => timedGet(running.url, "/v1/projects/aurora-swap", VICTIM, { authorization: `Bearer ${key}` }, agent));
    await victim();

    // 50 connections, as the measured attack used, asking for the 1.1 MB bundle uncompressed.
    const flood = await startAttacker<{ statuses: Record<string, number>; bytes: number }>("./_flood.mjs", [`${running.url}${bundle}`, 50, FLOODER, "identity"]);
    const { alone, attacked: flooded } = await pairedRounds(flood, victim, 5);
    const { statuses, bytes } = await flood.stop();

    console.log(`docs flood: victim p50 ${alone.p50.toFixed(2)} -> ${flooded.p50.toFixed(2)} ms, p99 ${alone.p99.toFixed(2)} -> ${flooded.p99.toFixed(2)} ms; flood ${JSON.stringify(statuses)}, ${(bytes / 1e6).toFixed(1)} MB`);
    expect(flooded.statuses.every((status) => status === 200)).toBe(true);
    expect(statuses["429"]).toBeGreaterThan(0);
    // At most the burst of 30 bundles (and what the refill adds) got through: about 33 MB, not gigabytes.
    expect(bytes).toBeLessThan(60 * 1.2e6);
    expect(flooded.p50).toBeLessThan(1.5 * Math.max(alone.p50, 0.5));
    // The tail on a shared 2-core runner moves with whatever else runs there; 2x, the bound the
    // slowloris test uses for its p99, still catches the 4x slow-down an unlimited flood caused.
    expect(flooded.p99).toBeLessThan(2 * Math.max(alone.p99, 2));
  });
});
