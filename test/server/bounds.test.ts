// Bounded answers to unbounded input (decision 21): at most 20 details, at most 20 query
// parameters, a prototype-free query map, and undecodable percent-encoding reported, not served.
import { afterAll, beforeAll, expect, it } from "vitest";
import { createTestService, type TestService } from "../_support/server.ts";

let service: TestService;
beforeAll(async () => {
  service = await createTestService();
});
afterAll(() => service.close());

it("a body with thousands of problems answers 20 details, the 20th counting the rest", async () => {
  // types holds at most 6 items (one problem when longer); unknown fields are one problem each.
  const body = JSON.stringify({ q: "ab", ...Object.fromEntries(Array.from({ length: 1_600 }, (_, i) => [`${i}`, 0])) });
  expect(body.length).toBeLessThanOrEqual(16 * 1024);
  const res = await service.call("POST", "/v1/search", { body });
  expect(res.status).toBe(422);
  const details = res.body.error.details as Array<{ path: string; message: string; code: string }>;
  expect(details).toHaveLength(20);
  const more = details[19]!;
  expect(more).toEqual({ path: "request", code: "more_problems", message: expect.stringMatching(/^\d+ more problems were found/) });
  expect(Number(more.message.split(" ")[0])).toBeGreaterThan(1_500);
  expect(res.text.length).toBeLessThan(8_000);
  expect(res.body.meta.credits_used).toBe(0);
});

it("exactly 20 problems are all listed", async () => {
  const query = Array.from({ length: 20 }, (_, i) => `x${i}=1`).join("&");
  const res = await service.call("GET", `/v1/events/berlin-node-day?${query}`);
  expect(res.status).toBe(422);
  expect(res.body.error.details).toHaveLength(20);
  expect(res.body.error.details.every((d: { code: string }) => d.code === "unknown_parameter")).toBe(true);
});

it("more than 20 query parameters is one problem, not one per parameter", async () => {
  const query = Array.from({ length: 700 }, (_, i) => `unknown${i}=${i}`).join("&");
  const res = await service.call("GET", `/v1/people/search?${query}`);
  expect(res.status).toBe(422);
  expect(res.body.error.details).toEqual([{ path: "query", code: "too_many_parameters", message: expect.stringContaining("20") }]);
  const twentyOne = Array.from({ length: 21 }, (_, i) => `limit${i}=1`).join("&");
  expect((await service.call("GET", `/v1/markets/snapshot?${twentyOne}`)).body.error.details).toHaveLength(1);
});

it("__proto__ and constructor are unknown parameters like any other", async () => {
  for (const name of ["__proto__", "constructor", "toString", "hasOwnProperty"]) {
    const res = await service.call("GET", `/v1/events/berlin-node-day?${name}=1`);
    expect(res.status, name).toBe(422);
    expect(res.body.error.details, name).toEqual([{ path: name, code: "unknown_parameter", message: `Query parameter "${name}" is not allowed.` }]);
  }
  const repeated = await service.call("GET", "/v1/people/search?query=ab&__proto__=1&__proto__=2");
  expect(repeated.body.error.details.map((d: { code: string }) => d.code).sort()).toEqual(["repeated_parameter", "unknown_parameter"]);
});

it("an undecodable percent-encoding in a query value or name is 422 invalid_format naming the parameter, uncharged", async () => {
  const { key } = service.newKey({ credits: 10 });
  const value = await service.call("GET", "/v1/people/search?query=%zz", { key });
  expect(value.status).toBe(422);
  expect(value.body.error.details).toEqual([{ path: "query", code: "invalid_format", message: expect.any(String) }]);
  expect(value.body.meta).toMatchObject({ credits_used: 0, credits_remaining: 10 });
  const name = await service.call("GET", "/v1/people/search?query=ab&lim%E0it=1", { key });
  expect(name.status).toBe(422);
  expect(name.body.error.details.map((d: { code: string }) => d.code)).toContain("invalid_format");
  // Well-formed encodings, `+` for space included, are decoded as before.
  const ok = await service.call("GET", "/v1/people/search?query=alice+nakamoto%20", { key });
  expect(ok.status).toBe(200);
  expect(ok.body.data.query).toBe("alice nakamoto ");
});
