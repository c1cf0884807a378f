// Decision 4 over HTTP: no error writes a credit anywhere. Every balance and every ledger row of
// the meter file is the same after a run of 401, 402, 403, 404, 422 and 429 answers, and the
// answers that come before the rate step (401, 403, 404 route) do not touch the windows either.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { meterBackends } from "../_support/meter-backends.ts";
import { FIXTURE_NOW, startMeteredServer, type HttpResult, type MeteredServer } from "./_http.ts";

const EVENT = "/v1/events/berlin-node-day";

describe.each(meterBackends)("%s meter", (backend) => {
  let server: MeteredServer;
  beforeAll(async () => { server = await startMeteredServer({ backend }); });
  afterAll(() => server.close());

  function expectFree(res: HttpResult, status: number): void {
    expect(res.status).toBe(status);
    expect(res.body.meta.credits_used).toBe(0);
    expect(res.headers.get("x-service-credits-used")).toBe("0");
  }

  it("401, 402, 403, 404, 422 and 429 leave every balance and ledger row as it was", async () => {
    server.clock.now = FIXTURE_NOW + 5_000;
    const active = await server.newKey({ tier: "free", credits: 500 });
    const scoped = await server.newKey({ tier: "free", credits: 500, scopes: ["search"] });
    const broke = await server.newKey({ tier: "free", credits: 0 });
    const disabled = await server.newKey({ tier: "free", credits: 500 });
    const revoked = await server.newKey({ tier: "free", credits: 500 });
    const limited = await server.newKey({ tier: "free", credits: 500 });
    await server.disableKey(disabled.id);
    await server.revokeKey(revoked.id);
    for (let i = 0; i < 60; i++) expect((await server.call("GET", EVENT, { key: limited.key })).status).toBe(200);

    const before = await server.view.state();
    for (let round = 0; round < 3; round++) {
      expectFree(await server.call("GET", EVENT, { key: null }), 401);
      expectFree(await server.call("GET", EVENT, { key: "cei_" + "z".repeat(40) }), 401);
      expectFree(await server.call("GET", EVENT, { key: disabled.key }), 403);
      expectFree(await server.call("GET", EVENT, { key: revoked.key }), 403);
    }
    // Nothing above reaches the rate step (no known, active key): not even the windows changed.
    expect(await server.view.state()).toEqual(before);

    for (let round = 0; round < 3; round++) {
      expectFree(await server.call("GET", EVENT, { key: scoped.key }), 403);
      expectFree(await server.call("GET", "/v1/no-such-route", { key: active.key }), 404);
      expectFree(await server.call("PATCH", EVENT, { key: active.key }), 404);
      expectFree(await server.call("GET", EVENT, { key: broke.key }), 402);
      expectFree(await server.call("POST", "/v1/search", { key: broke.key, body: { q: "aurora" } }), 402);
      expectFree(await server.call("GET", "/v1/events/no-such-event", { key: active.key }), 404);
      // Unreleased, the trending-projects path is an unknown project slug: counted, not charged.
      expectFree(await server.call("GET", "/v1/projects/trending", { key: active.key }), 404);
      expectFree(await server.call("GET", "/v1/projects/beacon-lend/market", { key: active.key }), 404);
      expectFree(await server.call("GET", `${EVENT}?limit=5`, { key: active.key }), 422);
      expectFree(await server.call("POST", "/v1/search", { key: active.key, body: { q: "*" } }), 422);
      expectFree(await server.call("POST", "/v1/search", { key: active.key, body: "{not json" }), 422);
      expectFree(await server.call("GET", EVENT, { key: limited.key }), 429);
    }
    const after = await server.view.state();
    expect(after.balances).toEqual(before.balances);
    expect(after.ledger).toEqual(before.ledger);
    // These did reach the rate step (decision 27): counted, but not charged.
    expect(after.windows).not.toEqual(before.windows);

    // The view does see a charge: the same key's next valid request writes its row.
    const ok = await server.call("GET", EVENT, { key: active.key });
    expect(ok.status).toBe(200);
    expect(await server.view.credits(active.id)).toBe(499);
    expect((await server.view.ledger(active.id)).at(-1)).toEqual({ key_id: active.id, kind: "charge", operation: "get_event", delta: -1, request_id: ok.body.meta.request_id });
  });
});
