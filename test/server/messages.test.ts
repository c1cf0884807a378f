// Every `details[].message` is a sentence of ours that names the parameter or body field; zod's own
// wording ("Invalid input: expected string, received undefined") never reaches a caller.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createTestService, type TestService } from "../_support/server.ts";

let service: TestService;
beforeAll(async () => {
  service = await createTestService();
});
afterAll(() => service.close());

type Detail = { path: string; message: string; code: string };
const detailsOf = async (method: string, path: string, body?: unknown): Promise<Detail[]> => {
  const res = await service.call(method, path, { key: service.newKey().key, body });
  expect(res.status, res.text).toBe(422);
  return res.body.error.details as Detail[];
};

describe("details messages", () => {
  it("a missing required parameter or body field is named as required", async () => {
    expect(await detailsOf("GET", "/v1/people/search")).toEqual([
      { path: "query", message: 'Query parameter "query" is required.', code: "invalid_type" },
    ]);
    expect(await detailsOf("POST", "/v1/search", { limit: 5 })).toEqual([
      { path: "q", message: 'Body field "q" is required.', code: "invalid_type" },
    ]);
  });

  it("ranges, enumerations, unknown and wrongly typed parameters", async () => {
    expect(await detailsOf("GET", "/v1/markets/top-movers?period=1h&limit=50&sort=desc")).toEqual([
      { path: "period", message: 'Query parameter "period" must be one of: 24h, 7d.', code: "invalid_value" },
      { path: "limit", message: 'Query parameter "limit" must be an integer from 1 to 20.', code: "too_big" },
      { path: "sort", message: 'Query parameter "sort" is not allowed.', code: "unknown_parameter" },
    ]);
    expect(await detailsOf("POST", "/v1/search", { q: "aurora", limit: "5", extra: 1 })).toEqual([
      { path: "limit", message: 'Body field "limit" must be an integer from 1 to 20.', code: "invalid_type" },
      { path: "extra", message: 'Body field "extra" is not allowed.', code: "unknown_field" },
    ]);
    expect(await detailsOf("POST", "/v1/search", ["aurora"])).toEqual([
      { path: "body", message: "The body must be a JSON object.", code: "invalid_type" },
    ]);
  });

  it("path identifiers and dates name their parameter", async () => {
    expect(await detailsOf("GET", `/v1/projects/${"p".repeat(161)}`)).toEqual([
      { path: "slug", message: 'Path parameter "slug" must be 1-160 characters.', code: "too_big" },
    ]);
    expect(await detailsOf("GET", "/v1/discover/trending?date=2026-3-1")).toEqual([
      { path: "date", message: 'Query parameter "date" must be a UTC date in the form YYYY-MM-DD.', code: "invalid_format" },
    ]);
    expect(await detailsOf("GET", "/v1/discover/trending?date=2026-01-01")).toEqual([
      { path: "date", message: 'Query parameter "date" must be one of the previous 30 UTC days; leave it out for today\'s live ranking.', code: "outside_window" },
    ]);
  });

  it("every message of a many-problem request is a sentence that names its path", async () => {
    const details = [
      ...(await detailsOf("POST", "/v1/search", { q: 5, types: ["planet", "project", "project"], limit: 0 })),
      ...(await detailsOf("GET", "/v1/stocks/rankings?region=mars&angle=x&limit=abc")),
      ...(await detailsOf("GET", "/v1/news/story:nope")),
    ];
    expect(details.length).toBeGreaterThanOrEqual(7);
    for (const detail of details) {
      expect(detail.message, JSON.stringify(detail)).toMatch(/^(Path parameter|Query parameter|Body field) "[^"]+" .+\.$/);
      expect(detail.message).toContain(`"${detail.path.replace(/\[\d+\]$/, "")}`);
      expect(detail.message).not.toMatch(/Invalid input|expected .*, received/);
    }
  });
});
