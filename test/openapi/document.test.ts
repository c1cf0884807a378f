// docs/openapi.json is what `cei openapi` generates from the routes, the policy table and the
// operations' schemas, and it says what those say: scopes, costs, errors, parameters, examples.
import { spawn } from "node:child_process";
import { createHash } from "node:crypto";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { openApiText } from "../../cli/openapi.ts";
import { codeToStatus, errorCodes } from "../../server/errors.ts";
import { API_VERSION, buildOpenApi, openApiPath } from "../../server/openapi/document.ts";
import { errorResponseName } from "../../server/openapi/responses.ts";
import { operationPolicy, operationSources } from "../../server/policy.ts";
import { routes } from "../../server/routes.ts";
import { OpenApiContract } from "../_support/openapi.ts";

const committedText = readFileSync(new URL("../../docs/openapi.json", import.meta.url), "utf8");
// eslint-disable-next-line @typescript-eslint/no-explicit-any
const committed = JSON.parse(committedText) as any;
const released = routes.filter((route) => route.release === undefined);
const operationOf = (route: (typeof routes)[number]) => committed.paths[openApiPath(route.path)]?.[route.method.toLowerCase()];

it("docs/openapi.json is exactly what `cei openapi` writes (rerun `npx cei openapi --out docs/openapi.json`)", async () => {
  expect(await openApiText({ releaseTrendingProjects: false })).toBe(committedText);
});

it("`cei openapi --release-trending-projects --out <file>` writes the document with the hidden operation and prints its sha256", async () => {
  const dir = mkdtempSync(join(tmpdir(), "cei-openapi-cli-"));
  try {
    const out = join(dir, "openapi.json");
    const child = spawn(process.execPath, ["bin/cei.js", "openapi", "--release-trending-projects", "--out", out], {
      cwd: new URL("../../", import.meta.url), stdio: ["ignore", "ignore", "pipe"],
    });
    let stderr = "";
    child.stderr.setEncoding("utf8").on("data", (chunk: string) => (stderr += chunk));
    expect(await new Promise((resolve) => child.once("close", resolve)), stderr).toBe(0);
    const text = readFileSync(out, "utf8");
    const document = JSON.parse(text);
    expect(document.paths["/v1/projects/trending"].get["x-credit-cost"]).toBe(operationPolicy.list_trending_projects.cost);
    expect(document.components.examples.list_trending_projects.value.data.kind).toBe("trending_projects");
    expect(stderr).toContain(`sha256 ${createHash("sha256").update(text).digest("hex")}`);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

it("is OpenAPI 3.1 at the interface version, with the bearer scheme required everywhere", () => {
  expect(committed.openapi).toBe("3.1.0");
  expect(committed.info.version).toBe(API_VERSION);
  expect(API_VERSION).toBe("1.0.0-beta");
  expect(committed.security).toEqual([{ bearerAuth: [] }]);
  expect(committed.components.securitySchemes.bearerAuth).toMatchObject({ type: "http", scheme: "bearer" });
});

it("documents the hidden operation only when it is released", () => {
  const hidden = routes.filter((route) => route.release !== undefined);
  expect(hidden.map((route) => route.operation)).toEqual(["list_trending_projects"]);
  expect(committedText).not.toContain("list_trending_projects");
  expect(committedText).not.toContain("ListTrendingProjects");
  const withHidden = buildOpenApi({ releaseTrendingProjects: true, examples: {} }) as unknown as { paths: Record<string, Record<string, { operationId: string }>> };
  expect(withHidden.paths["/v1/projects/trending"]?.get?.operationId).toBe("list_trending_projects");
});

describe.each(released.map((route) => [route.operation, route] as const))("%s", (operation, route) => {
  const policy = operationPolicy[operation];
  it("scope and credit cost from the policy table, as extensions and in the description", () => {
    const documented = operationOf(route);
    expect(documented.operationId).toBe(operation);
    expect(documented["x-scope"]).toBe(policy.scope);
    expect(documented["x-credit-cost"]).toBe(policy.cost);
    expect(documented.description).toContain(policy.scope === null ? "Needs no scope." : `\`${policy.scope}\` scope`);
    expect(documented.description).toContain(`${policy.cost} credit`);
  });
  it("lists exactly the errors it can give: 404 only with a path identifier or curated data to read (decision 28), 402 only with a cost", () => {
    const statuses = Object.keys(operationOf(route).responses).sort();
    const expected = ["200", "401", "403", "422", "429", "500"];
    if (route.path.includes(":") || operationSources[route.operation].length > 0) expected.push("404");
    if (policy.cost > 0) expected.push("402");
    expect(statuses).toEqual(expected.sort());
  });
  it("has a real success example from the sample", () => {
    expect(committed.components.examples[operation].value.data).toBeDefined();
  });
});

it("every error response has its envelope, headers and a real example from the sample", () => {
  for (const code of errorCodes) {
    const response = committed.components.responses[errorResponseName(code)];
    expect(response.description).toContain(code);
    const example = committed.components.examples[errorResponseName(code)].value;
    expect(example.error.code).toBe(code);
    expect(Object.keys(response.headers)).toEqual(expect.arrayContaining(["Cache-Control", "x-service-request-id", "x-service-credits-used"]));
    if (code === "RATE_LIMITED") expect(response.headers["Retry-After"]).toMatchObject({ required: true });
    else expect(response.headers["Retry-After"]).toBeUndefined();
    if (code === "INVALID_API_KEY") expect(response.headers["x-service-rate-limit"]).toBeUndefined();
    else expect(Object.keys(response.headers)).toEqual(expect.arrayContaining(["x-service-rate-limit", "RateLimit", "RateLimit-Policy", "x-service-credits-remaining"]));
    expect(String(codeToStatus[code])).toMatch(/^[45]\d\d$/);
  }
  expect(committed.components.schemas.InvalidRequestEnvelope.properties.error.required).toEqual(["code", "message", "details"]);
});

it("parameters carry their names, ranges, patterns, enums and defaults from the request schemas", () => {
  const parameter = (path: string, name: string) => committed.paths[path].get.parameters.find((p: { name: string }) => p.name === name);
  expect(parameter("/v1/stocks/rankings", "limit")).toEqual({ name: "limit", in: "query", required: false, schema: { type: "integer", minimum: 1, maximum: 30, default: 12 } });
  expect(parameter("/v1/stocks/rankings", "region").schema).toMatchObject({ default: "all", enum: expect.arrayContaining(["all", "us", "br"]) });
  expect(parameter("/v1/people/search", "query")).toMatchObject({ in: "query", required: true, schema: { minLength: 2, maxLength: 500 } });
  expect(parameter("/v1/news/{id}", "id")).toMatchObject({ in: "path", required: true, schema: { minLength: 42, maxLength: 42, pattern: expect.stringContaining("story:") } });
  expect(parameter("/v1/discover/trending", "date").schema.pattern).toBe("^\\d{4}-\\d{2}-\\d{2}$");
  expect(committed.paths["/v1/search"].post.requestBody.content["application/json"].schema).toMatchObject({
    required: ["q"], additionalProperties: false, properties: { limit: { default: 10, maximum: 20 } },
  });
});

it("every example in the document is valid against the document's own schemas (ajv)", () => {
  const contract = new OpenApiContract(committed);
  for (const route of released) {
    const value = committed.components.examples[route.operation].value;
    const headers = new Headers({
      "content-type": "application/json; charset=utf-8", "cache-control": "no-store", "x-service-request-id": value.meta.request_id,
      "x-service-snapshot": "0".repeat(64),
      "x-service-credits-used": String(value.meta.credits_used), "x-service-credits-remaining": String(value.meta.credits_remaining),
      "x-service-rate-limit": "limit=600;remaining=599;reset_at=2026-11-21T12:06:00.000Z;tier=pro",
      "ratelimit-policy": '"default";q=600;w=60', ratelimit: '"default";r=599;t=60',
    });
    expect(contract.problems(route.method, route.path, { status: 200, headers, text: JSON.stringify(value) })).toEqual([]);
  }
});

/** Every schema object of the document, with where it is. */
function* schemasIn(value: unknown, at = "#"): Generator<[string, Record<string, unknown>]> {
  if (Array.isArray(value)) {
    for (const [i, item] of value.entries()) yield* schemasIn(item, `${at}/${i}`);
  } else if (value !== null && typeof value === "object") {
    yield [at, value as Record<string, unknown>];
    for (const [key, item] of Object.entries(value)) yield* schemasIn(item, `${at}/${key}`);
  }
}

it("every integer states its real bounds: a lower bound always, never one below 0, and limits and ranks their maximum", () => {
  const integers = [...schemasIn(committed)].filter(([, schema]) => schema.type === "integer");
  expect(integers.length).toBeGreaterThan(40);
  expect(integers.filter(([at]) => /Result\/.*\/(limit|rank)$/.test(at)).length).toBeGreaterThan(15);
  for (const [at, schema] of integers) {
    expect(schema.minimum, at).toBeGreaterThanOrEqual(0);
    expect(schema.maximum, at).toBeGreaterThanOrEqual(schema.minimum as number);
    // A list's `limit` and its ranks (a rate window's `limit` is a request count: 1 to 1,000,000);
    // a token's market rank is its place in the top-200 market universe.
    if (/Result\/.*\/(limit|rank)$/.test(at)) {
      expect([schema.minimum, schema.maximum], at).toEqual([1, at.includes("/market/") ? 200 : expect.toBeOneOf([20, 30])]);
    }
  }
});

it("every success of every operation requires meta.credits_used, credits_remaining and rate_limit", () => {
  expect(committed.components.schemas.Meta.required).toEqual(["request_id", "credits_used", "credits_remaining", "rate_limit"]);
  for (const route of released) {
    const envelope = operationOf(route).responses["200"].content["application/json"].schema.$ref.split("/").at(-1);
    expect(committed.components.schemas[envelope].properties.meta, route.operation).toEqual({ $ref: "#/components/schemas/Meta" });
  }
});

it("names the server relatively, so a client generated from any deployment's document calls that deployment", () => {
  expect(committed.servers).toEqual([expect.objectContaining({ url: "/" })]);
});

it("documents every path outside /v1 as free: no key, no scope, cost 0", () => {
  const outside = Object.keys(committed.paths).filter((path) => !path.startsWith("/v1/"));
  expect(outside.sort()).toEqual(["/docs", "/healthz", "/llms.txt", "/openapi.json", "/readyz"]);
  for (const path of outside) {
    expect(committed.paths[path].get, path).toMatchObject({ security: [], "x-scope": null, "x-credit-cost": 0 });
  }
});
