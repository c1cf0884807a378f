// What a client sees of the key lifecycle (decision 37), over HTTP, on both meters: an expired key
// answers 403 with its own message (told apart from a disabled or revoked key), not counted; a
// rerolled secret works through its grace and is then 401 like any unknown key; a refill shows
// in the next answer's balance. Every answer is checked against the OpenAPI document.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { openApiContract } from "../_support/openapi.ts";
import { meterBackends } from "../_support/meter-backends.ts";
import { startMeteredServer, type HttpResult, type MeteredServer } from "./_http.ts";

const EVENT = "/v1/events/berlin-node-day";
const EXPIRED = { code: "FORBIDDEN", message: "The API key has expired." };
const DAY = 86_400_000;

describe.each(meterBackends)("%s meter", (backend) => {
  let server: MeteredServer;
  beforeAll(async () => { server = await startMeteredServer({ backend }); });
  afterAll(() => server.close());

  async function get(key: string, path = EVENT): Promise<HttpResult> {
    const res = await server.call("GET", path, { key });
    openApiContract().expectDescribed("GET", server.url + path, { status: res.status, headers: res.headers, text: JSON.stringify(res.body) });
    return res;
  }

  it("an expired key: 403 with its own message, on every path, not counted, charged nothing", async () => {
    const created = await server.keys.create({ tier: "pro", credits: 10, expiresAt: server.clock.now + 1_000 }, server.clock.now);
    const ok = await get(created.key);
    expect(ok.status).toBe(200);
    server.clock.now += 1_000;
    for (const path of [EVENT, "/v1/key", "/v1/nowhere"]) {
      const refused = await get(created.key, path);
      expect(refused.body).toMatchObject({ error: EXPIRED, meta: { credits_used: 0, credits_remaining: 9, rate_limit: { remaining: ok.body.meta.rate_limit.remaining } } });
    }
    await server.keys.expire(created.id, null, server.clock.now);
    expect((await get(created.key)).status).toBe(200);
  });

  it("a rerolled secret works through its grace, then 401 like any unknown key; the new one keeps the balance", async () => {
    const created = await server.keys.create({ tier: "pro", credits: 10 }, server.clock.now);
    expect((await get(created.key)).status).toBe(200);
    const rerolled = await server.keys.reroll(created.id, 60_000, server.clock.now);
    expect((await get(created.key)).body.meta.credits_remaining).toBe(8);
    server.clock.now += 60_000;
    const unknown = await get(created.key);
    expect(unknown.status).toBe(401);
    expect(unknown.body.meta).toEqual({ request_id: expect.any(String), credits_used: 0 });
    expect((await get(rerolled.key, "/v1/key")).body.data).toMatchObject({ id: created.id, credits_remaining: 8 });
  });

  it("a refill shows in the first answer of the next day", async () => {
    const created = await server.keys.create({ tier: "pro", credits: 3 }, server.clock.now);
    await server.keys.setRefill(created.id, { every: "day", to: 50 }, server.clock.now);
    expect((await get(created.key)).body.meta.credits_remaining).toBe(2);
    server.clock.now = (Math.floor(server.clock.now / DAY) + 1) * DAY;
    expect((await get(created.key)).body.meta.credits_remaining).toBe(49);
    expect((await get(created.key)).body.meta.credits_remaining).toBe(48);
  });
});
