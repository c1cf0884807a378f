// GET /openapi.json and the reference page at /docs: without a key, never metered, the committed
// document (with the hidden operation only when released), and assets from this server only.
import { readFileSync } from "node:fs";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createTestService, REQUEST_ID, type TestService } from "../_support/server.ts";

const committed = readFileSync(new URL("../../docs/openapi.json", import.meta.url), "utf8");

describe("served without a key", () => {
  let service: TestService;
  beforeAll(async () => {
    service = await createTestService();
  });
  afterAll(() => service.close());

  it("GET /openapi.json is docs/openapi.json", async () => {
    const res = await service.app.request("/openapi.json");
    expect(res.status).toBe(200);
    expect(res.headers.get("content-type")).toBe("application/json; charset=utf-8");
    expect(res.headers.get("cache-control")).toBe("no-store");
    expect(res.headers.get("x-service-request-id")).toMatch(REQUEST_ID);
    expect(await res.json()).toEqual(JSON.parse(committed));
  });

  it("GET /docs is a page that loads only this server's scripts, under a same-origin CSP", async () => {
    for (const path of ["/docs", "/docs/"]) {
      const res = await service.app.request(path);
      expect(res.status).toBe(200);
      expect(res.headers.get("content-type")).toBe("text/html; charset=utf-8");
      expect(res.headers.get("content-security-policy")).toContain("default-src 'none'");
      const html = await res.text();
      expect([...html.matchAll(/src="([^"]+)"/g)].map((m) => m[1])).toEqual(["/docs/redoc.standalone.js", "/docs/reference.js"]);
      expect(html).not.toMatch(/https?:\/\//);
    }
    const bundle = await service.app.request("/docs/redoc.standalone.js");
    expect(bundle.status).toBe(200);
    expect(bundle.headers.get("content-type")).toBe("text/javascript; charset=utf-8");
    expect(await bundle.text()).not.toContain("cdn.redoc.ly");
    expect(await (await service.app.request("/docs/reference.js")).text()).toContain('Redoc.init("/openapi.json"');
  });

  it("is never metered: a free key's window is untouched by 70 requests for the contract", async () => {
    const { key } = service.newKey({ tier: "free", credits: 5 });
    for (let i = 0; i < 70; i++) {
      const res = await service.app.request(i % 2 === 0 ? "/openapi.json" : "/docs", { headers: { authorization: `Bearer ${key}` } });
      expect(res.status).toBe(200);
    }
    const metered = await service.call("GET", "/v1/markets/snapshot", { key });
    expect(metered.body.meta).toMatchObject({ credits_remaining: 4, rate_limit: { limit: 60, remaining: 59 } });
  });

  it("other methods and paths under /docs stay behind the key like any unknown route", async () => {
    expect((await service.app.request("/openapi.json", { method: "POST" })).status).toBe(401);
    expect((await service.app.request("/docs/other.js")).status).toBe(401);
  });
});

it("documents the hidden operation when the server releases it, with the committed examples", async () => {
  const service = await createTestService({ releaseTrendingProjects: true });
  try {
    const document = (await (await service.app.request("/openapi.json")).json()) as { paths: Record<string, unknown>; components: { examples: Record<string, unknown> } };
    expect(Object.keys(document.paths)).toContain("/v1/projects/trending");
    expect(document.components.examples).toEqual(JSON.parse(committed).components.examples);
  } finally {
    service.close();
  }
});
