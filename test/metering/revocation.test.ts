// Disabling and revoking take effect on the very next request (operations.md, "Key lifecycle"),
// also when another process changes the key: `cei keys` run as its own process against a server
// that is running, in-process (injected clock) and as a `cei serve` child (real clock).
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { openMeterDatabase } from "../../server/meter/_database.ts";
import { createKey } from "../../server/meter/keys.ts";
import { fixtureSnapshot, request, startMeteredServer, type MeteredServer } from "./_http.ts";
import { cei, startCeiServe } from "./_processes.ts";

const EVENT = "/v1/events/berlin-node-day";
const FORBIDDEN = { code: "FORBIDDEN", message: "The API key is disabled or revoked." };

describe("in-process server", () => {
  let server: MeteredServer;
  beforeAll(async () => { server = await startMeteredServer(); });
  afterAll(() => server.close());

  const get = (key: string) => server.call("GET", EVENT, { key });

  it("disable, enable and revoke in this process apply to the very next request", async () => {
    const { id, key } = server.newKey({ credits: 10 });
    expect((await get(key)).status).toBe(200);
    server.disableKey(id);
    expect((await get(key)).body).toMatchObject({ error: FORBIDDEN, meta: { credits_used: 0, credits_remaining: 9 } });
    server.enableKey(id);
    expect((await get(key)).status).toBe(200);
    server.revokeKey(id);
    expect((await get(key)).body).toMatchObject({ error: FORBIDDEN, meta: { credits_used: 0, credits_remaining: 8 } });
    expect(server.view.credits(id)).toBe(8);
  });

  it("`cei keys disable|enable|revoke` in another process apply to the very next request", async () => {
    const { id, key } = server.newKey({ credits: 10 });
    const meter = ["--meter", server.meterFile];
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
    expect(server.view.ledger(id).filter((row) => row.kind === "charge")).toHaveLength(2);
  }, 30_000);
});

describe("`cei serve` child process", () => {
  it("`cei keys revoke` in a third process refuses the key's very next request, other keys unaffected", async () => {
    const dir = mkdtempSync(join(tmpdir(), "cei-revoke-"));
    const meterFile = join(dir, "meter.db");
    const admin = openMeterDatabase(meterFile);
    const doomed = createKey(admin, { tier: "pro", credits: 100 }, Date.now());
    const bystander = createKey(admin, { tier: "pro", credits: 100 }, Date.now());
    admin.close();
    const server = await startCeiServe(await fixtureSnapshot(), meterFile);
    try {
      const get = (key: string) => request(server.url, "GET", "/v1/projects/aurora-swap", { key });
      expect((await get(doomed.key)).status).toBe(200);
      await cei(["keys", "disable", doomed.id, "--meter", meterFile]);
      expect((await get(doomed.key)).body.error).toEqual(FORBIDDEN);
      await cei(["keys", "enable", doomed.id, "--meter", meterFile]);
      expect((await get(doomed.key)).status).toBe(200);
      await cei(["keys", "revoke", doomed.id, "--meter", meterFile]);
      const refused = await get(doomed.key);
      expect(refused.body).toMatchObject({ error: FORBIDDEN, meta: { credits_used: 0, credits_remaining: 98 } });
      expect((await get(bystander.key)).status).toBe(200);
    } finally {
      await server.stop("SIGTERM");
      rmSync(dir, { recursive: true, force: true });
    }
  }, 30_000);
});
