// What docs/api.md promises a consumer about the Authorization scheme and about browsers: the scheme
// name is case-insensitive (RFC 9110), and no CORS header is ever sent, a preflight included.
import { afterAll, beforeAll, expect, it } from "vitest";
import { createTestService, type TestService } from "../_support/server.ts";

let service: TestService;
beforeAll(async () => {
  service = await createTestService();
});
afterAll(() => service.close());

const corsHeaders = (headers: Headers) => [...headers.keys()].filter((name) => name.startsWith("access-control-"));

it("accepts the Bearer scheme in any case, and nothing else", async () => {
  const { key } = service.newKey();
  for (const scheme of ["Bearer", "bearer", "BEARER", "bEaReR"]) {
    const res = await service.call("GET", "/v1/projects/aurora-swap", { key: null, headers: { authorization: `${scheme} ${key}` } });
    expect(res.status, scheme).toBe(200);
  }
  for (const header of [`Basic ${key}`, `Token ${key}`, key]) {
    const res = await service.call("GET", "/v1/projects/aurora-swap", { key: null, headers: { authorization: header } });
    expect(res.status, header).toBe(401);
  }
});

it("sends no CORS headers, whether the answer is 200, an error or a preflight", async () => {
  const { key } = service.newKey();
  const origin = { origin: "https://page.example" };
  const ok = await service.call("GET", "/v1/projects/aurora-swap", { key, headers: origin });
  const notFound = await service.call("GET", "/v1/projects/nope", { key, headers: origin });
  const preflight = await service.call("OPTIONS", "/v1/projects/aurora-swap", {
    key: null, headers: { ...origin, "access-control-request-method": "GET", "access-control-request-headers": "authorization" },
  });
  expect([ok.status, notFound.status, preflight.status]).toEqual([200, 404, 401]);
  for (const res of [ok, notFound, preflight]) expect(corsHeaders(res.headers)).toEqual([]);
});
