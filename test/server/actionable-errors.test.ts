// Decision 32, for every operation of the route table: a 402 names the operation's cost and the
// key's balance; a record that is absent answers 404 exactly as an unknown path does; a record that
// is served without the part asked for answers 404 saying which part.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { z } from "zod";
import { operationPolicy } from "../../server/policy.ts";
import { routes, type Route } from "../../server/routes.ts";
import { operationCalls } from "../_support/operation-calls.ts";
import { createTestService, type TestService } from "../_support/server.ts";

let service: TestService;
beforeAll(async () => {
  service = await createTestService({ releaseTrendingProjects: true });
});
afterAll(() => service.close());

const credits = (n: number) => (n === 1 ? "1 credit" : `${n} credits`);
const metered = routes.filter((route) => operationPolicy[route.operation].cost > 0);
const withIdentifier = routes.filter((route) => route.path.includes(":"));

/** A value of the right form that names no record: the first candidate the route's path parameters accept. */
function absentPath(route: Route): string {
  const params = (route.handler.request as z.ZodObject<{ params: z.ZodType }>).shape.params;
  const names = [...route.path.matchAll(/:([a-z_]+)/g)].map((match) => match[1]!);
  const candidates = ["no-such-record", "story:00000000-0000-4000-8000-000000000000"];
  const absent = candidates.find((value) => params.safeParse(Object.fromEntries(names.map((name) => [name, value]))).success);
  expect(absent, `${route.operation}: a well-formed identifier`).toBeDefined();
  return route.path.replace(/:([a-z_]+)/g, absent!);
}

/** For each operation that declares missing parts: a served record of the fixtures without that part. */
const missingPartCalls: Record<string, Array<{ path: string; message: string }>> = {
  get_project_market: [{ path: "/v1/projects/beacon-lend/market", message: "The project has no fresh TVL snapshot." }],
  get_tokenomics: [{ path: "/v1/tokenomics/tok_btc", message: "The token has no fresh tokenomics." }],
  get_token_unlocks: [{ path: "/v1/tokens/tok_btc/unlocks", message: "The token has no served tokenomics." }],
};

describe.each(metered.map((route) => [route.operation, route] as const))("402: %s", (operation, route) => {
  it("names the operation's cost and the key's balance", async () => {
    const cost = operationPolicy[operation].cost;
    const call = operationCalls.find((candidate) => candidate.operation === operation);
    expect(call, `test/_support/operation-calls.ts has a valid request for ${operation}`).toBeDefined();
    const balance = cost - 1;
    const { key } = service.newKey({ credits: balance });
    const res = await service.call(route.method, call!.path, { key, body: call!.body });
    expect(res.status).toBe(402);
    expect(res.body.error).toEqual({
      code: "INSUFFICIENT_CREDITS",
      message: `This operation costs ${credits(cost)}; the API key has ${credits(balance)}. Ask the operator to credit the key.`,
    });
    expect(res.body.meta.credits_remaining).toBe(balance);
  });
});

describe.each(withIdentifier.map((route) => [route.operation, route] as const))("404: %s", (operation, route) => {
  it("an absent record answers exactly as an unknown path does", async () => {
    const { key } = service.newKey();
    const unknown = await service.call("GET", "/v1/no-such-route", { key });
    const absent = await service.call(route.method, absentPath(route), { key });
    expect(absent.status).toBe(404);
    expect(absent.body.error).toEqual(unknown.body.error);
    expect(absent.text.replace(/req_[0-9a-f-]+/, "").replace(/"remaining":\d+/, "")).toBe(
      unknown.text.replace(/req_[0-9a-f-]+/, "").replace(/"remaining":\d+/, ""),
    );
  });

  const declared = route.handler.missingParts.map((error) => error.message);
  it(`a served record without a part says which part (${declared.length} declared)`, async () => {
    const calls = missingPartCalls[operation] ?? [];
    expect(calls.map((call) => call.message).sort(), "every declared part is reached below, and only those").toEqual([...declared].sort());
    for (const { path, message } of calls) {
      const res = await service.call(route.method, path, { key: service.newKey().key });
      expect(res.status).toBe(404);
      expect(res.body.error).toEqual({ code: "NOT_FOUND", message });
    }
  });
});
