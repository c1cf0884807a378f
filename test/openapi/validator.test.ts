// The document's validator (test/_support/openapi.ts) refuses what the document does not describe:
// real answers from the fixture server pass, and each one changed in one way fails.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { openApiContract, type ObservedResponse } from "../_support/openapi.ts";
import { createTestService, type TestService } from "../_support/server.ts";

let service: TestService;
beforeAll(async () => {
  service = await createTestService();
});
afterAll(() => service.close());

const contract = openApiContract();

async function observed(method: string, path: string, options: Parameters<TestService["call"]>[2] = {}): Promise<ObservedResponse> {
  const res = await service.call(method, path, options);
  return { status: res.status, headers: new Headers(res.headers), text: res.text };
}

function withBody(response: ObservedResponse, change: (body: { data?: Record<string, unknown>; error?: Record<string, unknown>; meta: Record<string, unknown> }) => void): ObservedResponse {
  const body = JSON.parse(response.text);
  change(body);
  return { ...response, text: JSON.stringify(body) };
}

function withHeaders(response: ObservedResponse, change: (headers: Headers) => void): ObservedResponse {
  const headers = new Headers(response.headers);
  change(headers);
  return { ...response, headers };
}

describe("a 200 of GET /v1/projects/{slug}", () => {
  let ok: ObservedResponse;
  beforeAll(async () => {
    ok = await observed("GET", "/v1/projects/aurora-swap");
  });
  it("as served: described", () => {
    expect(ok.status).toBe(200);
    expect(contract.problems("GET", "/v1/projects/aurora-swap", ok)).toEqual([]);
  });
  it.each([
    ["an extra data field", (r: ObservedResponse) => withBody(r, (b) => void (b.data!.website = "https://example.org"))],
    ["a data field gone", (r: ObservedResponse) => withBody(r, (b) => void delete b.data!.slug)],
    ["a data field turned null", (r: ObservedResponse) => withBody(r, (b) => void (b.data!.name = null))],
    ["an extra meta field", (r: ObservedResponse) => withBody(r, (b) => void (b.meta.cost = 1))],
    ["a malformed request id", (r: ObservedResponse) => withBody(r, (b) => void (b.meta.request_id = "short"))],
    ["a required header missing", (r: ObservedResponse) => withHeaders(r, (h) => h.delete("x-service-credits-remaining"))],
    ["a header value out of its pattern", (r: ObservedResponse) => withHeaders(r, (h) => h.set("x-service-credits-used", "one"))],
    ["an undescribed API header", (r: ObservedResponse) => withHeaders(r, (h) => h.set("x-service-debug", "1"))],
    ["Retry-After on a 200", (r: ObservedResponse) => withHeaders(r, (h) => h.set("retry-after", "1"))],
    ["a status the operation does not list", (r: ObservedResponse) => ({ ...r, status: 418 })],
  ])("with %s: refused", (_name, change) => {
    expect(contract.problems("GET", "/v1/projects/aurora-swap", change(ok)).length).toBeGreaterThan(0);
  });
});

describe("errors", () => {
  it("a 404 where the operation can never answer one (it reads no curated data and names no record) is not described", async () => {
    const notFound = await observed("GET", "/v1/projects/no-such-project");
    expect(notFound.status).toBe(404);
    expect(contract.problems("GET", "/v1/projects/no-such-project", notFound)).toEqual([]);
    expect(contract.problems("GET", "/v1/markets/snapshot", notFound)).toEqual([]);
    expect(contract.problems("GET", "/v1/key", notFound)).toEqual(["GET /v1/key: status 404 is not documented"]);
  });
  it("a 422 without details, or a 429 without Retry-After, is refused", async () => {
    const invalid = await observed("GET", "/v1/stocks/rankings?limit=0");
    expect(contract.problems("GET", "/v1/stocks/rankings", invalid)).toEqual([]);
    expect(contract.problems("GET", "/v1/stocks/rankings", withBody(invalid, (b) => void delete b.error!.details)).join()).toMatch(/details/);
    const { key } = service.newKey({ tier: "free" });
    for (let i = 0; i < 60; i++) await observed("GET", "/v1/markets/snapshot", { key });
    const limited = await observed("GET", "/v1/markets/snapshot", { key });
    expect(limited.status).toBe(429);
    expect(contract.problems("GET", "/v1/markets/snapshot", limited)).toEqual([]);
    expect(contract.problems("GET", "/v1/markets/snapshot", withHeaders(limited, (h) => h.delete("retry-after"))).join()).toMatch(/Retry-After is missing/);
  });
  it("an unknown route may answer 401, 403 or 404 in the envelope, nothing else", async () => {
    const unknown = await observed("GET", "/v1/nothing-here");
    expect(contract.problems("GET", "/v1/nothing-here", unknown)).toEqual([]);
    expect(contract.problems("GET", "/v1/nothing-here", { ...unknown, status: 200 }).length).toBeGreaterThan(0);
    expect(contract.problems("GET", "/v1/nothing-here", withBody(unknown, (b) => void (b.error!.code = "GONE"))).length).toBeGreaterThan(0);
  });
});
