// Decision 8 over HTTP, for every tier: a key holding only one scope reaches exactly the
// operations of that scope, and a key holding every scope but one reaches all the others.
// The whole 200/403 table is compared at once, so one wrong cell shows where it is.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { meterBackends } from "../_support/meter-backends.ts";
import type { Tier } from "../../server/policy.ts";
import { startMeteredServer, type MeteredServer } from "./_http.ts";
import { allScopes, operationCalls } from "../_support/operation-calls.ts";

const TIERS: readonly Tier[] = ["free", "pro", "pro_plus", "team", "internal"];
const CREDITS = 100;

describe.each(meterBackends)("%s meter", (backend) => {
  let server: MeteredServer;
  beforeAll(async () => { server = await startMeteredServer({ releaseTrendingProjects: true, backend }); });
  afterAll(() => server.close());

  /** One row per key: the status of every operation, in operationCalls order. */
  type StatusTable = Record<string, Record<string, number>>;

  function expectedTable(): StatusTable {
    const table: StatusTable = {};
    for (const scope of allScopes) {
      table[`only ${scope}`] = Object.fromEntries(operationCalls.map((call) => [call.operation, call.scope === scope ? 200 : 403]));
      table[`all but ${scope}`] = Object.fromEntries(operationCalls.map((call) => [call.operation, call.scope === scope ? 403 : 200]));
    }
    return table;
  }

  it.each(TIERS)("tier %s: exactly the 200/403 table of decision 8; 200s charge the published cost, 403s nothing", async (tier) => {
    const keys: Array<{ label: string; id: string; key: string }> = [];
    for (const scope of allScopes) {
      keys.push({ label: `only ${scope}`, ...await server.newKey({ tier, credits: CREDITS, scopes: [scope] }) });
      keys.push({ label: `all but ${scope}`, ...await server.newKey({ tier, credits: CREDITS, scopes: allScopes.filter((s) => s !== scope) }) });
    }
    const actual: StatusTable = {};
    await Promise.all(keys.map(async ({ label, id, key }) => {
      const row: Record<string, number> = {};
      let spent = 0;
      for (const call of operationCalls) {
        const res = await server.call(call.method, call.path, { key, body: call.body });
        row[call.operation] = res.status;
        if (res.status === 200) {
          expect(res.body.meta.credits_used, `${label} ${call.operation}`).toBe(call.cost);
          spent += call.cost;
        } else {
          expect(res.body, `${label} ${call.operation}`).toMatchObject({
            error: { code: "FORBIDDEN", message: "The API key does not have the scope this operation requires." },
            meta: { credits_used: 0, credits_remaining: CREDITS - spent, rate_limit: { tier } },
          });
        }
        expect(res.body.meta.rate_limit.tier).toBe(tier);
      }
      actual[label] = row;
      expect(await server.view.credits(id), label).toBe(CREDITS - spent);
    }));
    expect(actual).toEqual(expectedTable());
  });

  it("the operations of every scope, together, are all 25 operations, each answering 200 with data", async () => {
    const { key } = await server.newKey({ tier: "internal", credits: CREDITS });
    const answered = [];
    for (const call of operationCalls) {
      const res = await server.call(call.method, call.path, { key, body: call.body });
      expect(res.status, call.operation).toBe(200);
      expect(res.body.data, call.operation).toEqual(expect.any(Object));
      answered.push(call.operation);
    }
    expect(new Set(answered).size).toBe(25);
    expect(new Set(operationCalls.map((call) => call.scope))).toEqual(new Set(allScopes));
  });
});
