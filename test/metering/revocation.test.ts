// Disabling and revoking take effect on the very next request (operations.md, "Key lifecycle"),
// also when another process changes the key: `cei keys` run as its own process against a server
// that is running, in-process (injected clock) and as two `cei serve` readers (real clock) sharing
// the meter, for both meters (a SQLite file, PostgreSQL).
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { openKeyStore } from "../../server/meter/open.ts";
import { meterBackends, newMeterLocation } from "../_support/meter-backends.ts";
import { fixtureSnapshot, request, startMeteredServer, type MeteredServer } from "./_http.ts";
import { cei, startCeiServe } from "../_support/processes.ts";

const EVENT = "/v1/events/berlin-node-day";
const FORBIDDEN = { code: "FORBIDDEN", message: "The API key is disabled or revoked." };

describe.each(meterBackends)("%s meter", (backend) => {
  describe("in-process server", () => {
    let server: MeteredServer;
    beforeAll(async () => { server = await startMeteredServer({ backend }); });
    afterAll(() => server.close());

    const get = (key: string) => server.call("GET", EVENT, { key });

    it("disable, enable and revoke in this process apply to the very next request", async () => {
      const { id, key } = await server.newKey({ credits: 10 });
      expect((await get(key)).status).toBe(200);
      await server.disableKey(id);
      expect((await get(key)).body).toMatchObject({ error: FORBIDDEN, meta: { credits_used: 0, credits_remaining: 9 } });
      await server.enableKey(id);
      expect((await get(key)).status).toBe(200);
      await server.revokeKey(id);
      expect((await get(key)).body).toMatchObject({ error: FORBIDDEN, meta: { credits_used: 0, credits_remaining: 8 } });
      expect(await server.view.credits(id)).toBe(8);
    });

    it("`cei keys disable|enable|revoke` in another process apply to the very next request", async () => {
      const { id, key } = await server.newKey({ credits: 10 });
      const meter = ["--meter", server.meterLocation];
      expect((await get(key)).status).toBe(200);

      await cei(["keys", "disable", id, ...meter]);
      expect((await get(key)).body.error).toEqual(FORBIDDEN);
      await cei(["keys", "enable", id, ...meter]);
      expect((await get(key)).status).toBe(200);
      await cei(["keys", "revoke", id, ...meter]);
      expect((await get(key)).body.error).toEqual(FORBIDDEN);

      // Revocation is final: enabling again fails and the key stays refused.
      await expect(cei(["keys", "enable", id, ...meter])).rejects.toThrow(/revoked, and revocation is final/);
      const refused = await get(key);
      expect(refused.body).toMatchObject({ error: FORBIDDEN, meta: { credits_used: 0, credits_remaining: 8 } });
      expect((await server.view.ledger(id)).filter((row) => row.kind === "charge")).toHaveLength(2);
    }, 30_000);
  });

  describe("scopes and refusals decided before admission", () => {
    let server: MeteredServer;
    beforeAll(async () => { server = await startMeteredServer({ backend }); });
    afterAll(() => server.close());

    const PROJECT = "/v1/projects/aurora-swap";
    const OUT_OF_SCOPE = { code: "FORBIDDEN", message: "The API key does not have the scope this operation requires." };

    it("scopes widened or narrowed apply to the very next request; a refusal for scope is counted like any request", async () => {
      const { id, key } = await server.newKey({ credits: 10, scopes: ["events"] });
      expect((await server.call("GET", EVENT, { key })).status).toBe(200);
      expect((await server.call("GET", PROJECT, { key })).body.error).toEqual(OUT_OF_SCOPE);

      await server.setScopes(id, ["events", "projects"]);
      const widened = await server.call("GET", PROJECT, { key });
      expect(widened.status).toBe(200);
      expect((await server.call("GET", EVENT, { key })).status).toBe(200);

      await server.setScopes(id, ["projects"]);
      const narrowed = await server.call("GET", EVENT, { key });
      expect(narrowed.body).toMatchObject({ error: OUT_OF_SCOPE, meta: { credits_used: 0, credits_remaining: 7 } });
      // Counted (decision 27): the window holds the 200 after the widening and this refusal.
      expect(narrowed.body.meta.rate_limit.remaining).toBe(widened.body.meta.rate_limit.remaining - 2);
      expect((await server.call("GET", PROJECT, { key })).status).toBe(200);
      expect(await server.view.credits(id)).toBe(6);
    });

    it("a key revoked since its last request is refused as revoked, on an unknown route and outside its scopes too", async () => {
      const { id, key } = await server.newKey({ credits: 10, scopes: ["projects"] });
      expect((await server.call("GET", PROJECT, { key })).status).toBe(200);
      await server.revokeKey(id);
      expect((await server.call("GET", "/v1/nowhere", { key })).body).toMatchObject({ error: FORBIDDEN, meta: { credits_used: 0, credits_remaining: 9 } });
      expect((await server.call("GET", EVENT, { key })).body.error).toEqual(FORBIDDEN);
      expect((await server.call("DELETE", PROJECT, { key })).body.error).toEqual(FORBIDDEN);
      expect((await server.call("GET", PROJECT, { key })).body.error).toEqual(FORBIDDEN);
      expect(await server.view.credits(id)).toBe(9);
    });
  });

  describe("`cei serve` child processes", () => {
    it("`cei keys revoke` in a third process refuses the key's very next request in both readers, other keys unaffected", async () => {
      const meter = await newMeterLocation(backend);
      const keys = await openKeyStore(meter, { mustExist: false });
      const doomed = await keys.create({ tier: "pro", credits: 100 }, Date.now());
      const bystander = await keys.create({ tier: "pro", credits: 100 }, Date.now());
      await keys.close();
      const snapshot = await fixtureSnapshot();
      const servers = await Promise.all([startCeiServe(snapshot, meter), startCeiServe(snapshot, meter)]);
      try {
        const get = (reader: number, key: string) => request(servers[reader]!.url, "GET", "/v1/projects/aurora-swap", { key });
        expect((await get(0, doomed.key)).status).toBe(200);
        expect((await get(1, doomed.key)).status).toBe(200);
        await cei(["keys", "disable", doomed.id, "--meter", meter]);
        expect((await get(1, doomed.key)).body.error).toEqual(FORBIDDEN);
        expect((await get(0, doomed.key)).body.error).toEqual(FORBIDDEN);
        await cei(["keys", "enable", doomed.id, "--meter", meter]);
        expect((await get(0, doomed.key)).status).toBe(200);
        await cei(["keys", "revoke", doomed.id, "--meter", meter]);
        for (const reader of [1, 0]) {
          const refused = await get(reader, doomed.key);
          expect(refused.body).toMatchObject({ error: FORBIDDEN, meta: { credits_used: 0, credits_remaining: 97 } });
          expect((await get(reader, bystander.key)).status).toBe(200);
        }
      } finally {
        await Promise.all(servers.map((server) => server.stop("SIGTERM")));
      }
    }, 30_000);
  });
});
