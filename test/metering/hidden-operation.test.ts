// The unreleased trending-projects operation is indistinguishable from an unknown project slug
// (decisions 3 and 5) in every key state: status, code, message, headers, window counting, charge.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { meterBackends } from "../_support/meter-backends.ts";
import { startMeteredServer, type HttpResult, type MeteredServer } from "./_http.ts";

describe.each(meterBackends)("%s meter", (backend) => {
  let server: MeteredServer;
  beforeAll(async () => {
    server = await startMeteredServer({ backend });
  });
  afterAll(() => server.close());

  type KeyState = "no key" | "unknown" | "disabled" | "revoked" | "missing scope" | "rate-limited" | "zero credits" | "normal";
  const states: KeyState[] = ["no key", "unknown", "disabled", "revoked", "missing scope", "rate-limited", "zero credits", "normal"];

  /** A fresh key in the given state (each path gets its own, so their windows and balances compare). */
  async function keyIn(state: KeyState): Promise<{ key: string | null; id?: string }> {
    if (state === "no key") return { key: null };
    if (state === "unknown") return { key: "cei_" + "u".repeat(40) };
    const created = await server.newKey({
      tier: "free",
      credits: state === "zero credits" ? 0 : 50,
      scopes: state === "missing scope" ? ["news"] : undefined,
    });
    if (state === "disabled") await server.disableKey(created.id);
    if (state === "revoked") await server.revokeKey(created.id);
    if (state === "rate-limited") {
      for (let i = 0; i < 60; i++) await server.call("GET", "/v1/key", { key: created.key });
    }
    return created;
  }

  /** Everything a caller sees, minus the request id (random) and the credits of the key itself. */
  function seen(res: HttpResult): unknown {
    const headers = Object.fromEntries([...res.headers].filter(([name]) => !["x-service-request-id", "date"].includes(name)));
    return { status: res.status, headers, body: { ...res.body, meta: { ...res.body.meta, request_id: "" } } };
  }

  it.each(states)("key state %s: /v1/projects/trending answers exactly as an unknown project", async (state) => {
    const answers: unknown[][] = [];
    const ledgers: unknown[] = [];
    for (const path of ["/v1/projects/trending", "/v1/projects/no-such-project"]) {
      const { key, id } = await keyIn(state);
      // Twice: the second answer shows whether the first was counted in the window.
      answers.push([seen(await server.call("GET", path, { key })), seen(await server.call("GET", path, { key }))]);
      if (id !== undefined) ledgers.push((await server.view.ledger(id)).filter((row) => row.kind === "charge"));
    }
    expect(answers[0]).toEqual(answers[1]);
    for (const ledger of ledgers) expect(ledger).toEqual([]);
    const expectedStatus: Record<KeyState, number> = {
      "no key": 401, unknown: 401, disabled: 403, revoked: 403, "missing scope": 403, "rate-limited": 429, "zero credits": 402, normal: 404,
    };
    expect((answers[0]![0] as { status: number }).status).toBe(expectedStatus[state]);
  });
});
