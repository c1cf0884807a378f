// GET /openapi.json and the reference page at /docs: without a key, never metered, the committed
// document byte for byte (with the hidden operation only when released), assets from this server
// only, under content-hashed names cached for a year, in brotli or gzip when the client takes it.
import { createHash } from "node:crypto";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { Agent, get as httpGet, STATUS_CODES } from "node:http";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { brotliDecompressSync, gunzipSync } from "node:zlib";
import { afterAll, beforeAll, describe, expect, it, onTestFinished } from "vitest";
import { docsAssets, loadEncoded, writeDocsAssets } from "../../server/public/assets.ts";
import { chooseEncoding } from "../../server/public/encoding.ts";
import { referencePaths } from "../../server/public/paths.ts";
import { publicRoutes } from "../../server/public-routes.ts";
import { documentedRoutes, openApiPath } from "../../server/openapi/document.ts";
import { operationPolicy } from "../../server/policy.ts";
import type { RunningServer } from "../../server/listen.ts";
import { openApiContract } from "../_support/openapi.ts";
import { createTestService, REQUEST_ID, startTestServer, type TestService } from "../_support/server.ts";

const committedBytes = readFileSync(new URL("../../docs/openapi.json", import.meta.url));
const committed = committedBytes.toString("utf8");
const changelog = readFileSync(new URL("../../CHANGELOG.md", import.meta.url), "utf8");
const sha256 = (bytes: Buffer) => createHash("sha256").update(bytes).digest("hex");

/** The body as sent, decoded by its Content-Encoding. */
async function decoded(res: Response): Promise<Buffer> {
  const body = Buffer.from(await res.arrayBuffer());
  const encoding = res.headers.get("content-encoding");
  return encoding === "br" ? brotliDecompressSync(body) : encoding === "gzip" ? gunzipSync(body) : body;
}

const scriptsOf = (html: string) => [...html.matchAll(/src="([^"]+)"/g)].map((m) => m[1]!);

describe("served without a key", () => {
  let service: TestService;
  beforeAll(async () => {
    service = await createTestService();
  });
  afterAll(() => service.close());

  it("GET /openapi.json is docs/openapi.json byte for byte: its sha256 is CHANGELOG.md's, in every encoding", async () => {
    for (const [acceptEncoding, encoding] of [[undefined, null], ["gzip", "gzip"], ["gzip, deflate, br", "br"]] as const) {
      const res = await service.app.request("/openapi.json", { headers: acceptEncoding === undefined ? {} : { "accept-encoding": acceptEncoding } });
      expect(res.status).toBe(200);
      expect(res.headers.get("content-type")).toBe("application/json; charset=utf-8");
      expect(res.headers.get("content-encoding")).toBe(encoding);
      expect(res.headers.get("vary")).toBe("Accept-Encoding");
      expect(res.headers.get("cache-control")).toBe("no-cache");
      expect(res.headers.get("x-service-request-id")).toMatch(REQUEST_ID);
      const body = await decoded(res);
      expect(body.equals(committedBytes)).toBe(true);
      expect(changelog).toContain(`openapi.json sha256: \`${sha256(body)}\``);
    }
  });

  it("a client holding the current document or page gets 304 without a body", async () => {
    for (const path of ["/openapi.json", "/docs"]) {
      const first = await service.app.request(path, { headers: { "accept-encoding": "br" } });
      const etag = first.headers.get("etag")!;
      expect(etag).toMatch(/^"[0-9a-f]{16}(-br)?"$/);
      const again = await service.app.request(path, { headers: { "accept-encoding": "br", "if-none-match": etag } });
      expect(again.status).toBe(304);
      expect(await again.text()).toBe("");
      // Another encoding is another representation: sent whole.
      expect((await service.app.request(path, { headers: { "accept-encoding": "gzip", "if-none-match": etag } })).status).toBe(200);
    }
  });

  it("GET /docs is a page that loads only this server's scripts, under a same-origin CSP", async () => {
    for (const path of ["/docs", "/docs/"]) {
      const res = await service.app.request(path);
      expect(res.status).toBe(200);
      expect(res.headers.get("content-type")).toBe("text/html; charset=utf-8");
      expect(res.headers.get("content-security-policy")).toContain("default-src 'none'");
      expect(res.headers.get("cache-control")).toBe("no-cache");
      const html = await res.text();
      expect(scriptsOf(html)).toEqual([expect.stringMatching(/^\/docs\/redoc\.standalone\.[0-9a-f]{16}\.js$/), expect.stringMatching(/^\/docs\/reference\.[0-9a-f]{16}\.js$/)]);
      expect(html).not.toMatch(/https?:\/\//);
    }
    const [bundlePath, initPath] = scriptsOf(await (await service.app.request("/docs")).text());
    const bundle = await service.app.request(bundlePath!);
    expect(bundle.status).toBe(200);
    expect(bundle.headers.get("content-type")).toBe("text/javascript; charset=utf-8");
    expect((await bundle.text())).not.toContain("cdn.redoc.ly");
    expect(await (await service.app.request(initPath!)).text()).toContain('Redoc.init("/openapi.json"');
  });

  it("serves each asset under its content hash, cached for a year, in the encoding the client accepts", async () => {
    const paths = scriptsOf(await (await service.app.request("/docs")).text());
    for (const path of paths) {
      const bodies: Buffer[] = [];
      for (const [acceptEncoding, encoding] of [[undefined, null], ["gzip;q=1, br;q=0", "gzip"], ["br, gzip", "br"], ["*", "br"]] as const) {
        const res = await service.app.request(path, { headers: acceptEncoding === undefined ? {} : { "accept-encoding": acceptEncoding } });
        expect(res.status).toBe(200);
        expect(res.headers.get("cache-control")).toBe("public, max-age=31536000, immutable");
        expect(res.headers.get("vary")).toBe("Accept-Encoding");
        const body = await decoded(res);
        // The init script is too small to gain from compression and always goes as it is.
        if (body.length > 1_000) expect(res.headers.get("content-encoding"), `${path} for ${acceptEncoding}`).toBe(encoding);
        expect(res.headers.get("etag")).toBe(`"${sha256(body).slice(0, 16)}${res.headers.get("content-encoding") === "br" ? "-br" : res.headers.get("content-encoding") === "gzip" ? "-gz" : ""}"`);
        expect(path).toContain(`.${sha256(body).slice(0, 16)}.js`);
        bodies.push(body);
      }
      expect(bodies.every((body) => body.equals(bodies[0]!))).toBe(true);
    }
    // The bundle's bytes shrink about 4x in brotli.
    const bundle = await service.app.request(paths[0]!, { headers: { "accept-encoding": "br" } });
    expect((await bundle.arrayBuffer()).byteLength).toBeLessThan(1_103_000 / 3);
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
    // The unhashed names are gone: a page is always told the current ones.
    expect((await service.app.request("/docs/redoc.standalone.js")).status).toBe(401);
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

describe("the build's precompressed assets", () => {
  const tempDir = () => {
    const dir = mkdtempSync(join(tmpdir(), "cei-docs-assets-"));
    onTestFinished(() => rmSync(dir, { recursive: true, force: true }));
    return dir;
  };

  it("are used when they hold this very content, and compressed at start-up otherwise", async () => {
    const dir = tempDir();
    const written = await writeDocsAssets(dir);
    const assets = docsAssets();
    expect(written).toEqual(assets.map((asset) => asset.file));
    for (const asset of assets) {
      const built = await loadEncoded(asset, dir);
      expect(built.built).toBe(true);
      expect(brotliDecompressSync(built.br).equals(asset.body)).toBe(true);
      expect(gunzipSync(built.gzip).equals(asset.body)).toBe(true);
      const missing = await loadEncoded(asset, join(dir, "absent"));
      expect(missing.built).toBe(false);
      expect(brotliDecompressSync(missing.br).equals(asset.body)).toBe(true);
    }
    // A damaged file under the right name is not served: compressed afresh instead.
    const bundle = assets[0]!;
    writeFileSync(join(dir, `${bundle.file}.br`), Buffer.from("not brotli"));
    const damaged = await loadEncoded(bundle, dir);
    expect(damaged.built).toBe(false);
    expect(brotliDecompressSync(damaged.br).equals(bundle.body)).toBe(true);
  });

  it("choose br, then gzip, then the original, by Accept-Encoding and its q-values", () => {
    expect(chooseEncoding(undefined)).toBe("identity");
    expect(chooseEncoding("")).toBe("identity");
    expect(chooseEncoding("gzip, deflate, br, zstd")).toBe("br");
    expect(chooseEncoding("gzip")).toBe("gzip");
    expect(chooseEncoding("br;q=0, gzip;q=0.5")).toBe("gzip");
    expect(chooseEncoding("*;q=0")).toBe("identity");
    expect(chooseEncoding("deflate, identity")).toBe("identity");
    expect(chooseEncoding("BR")).toBe("br");
    expect(chooseEncoding("gzip;q=bogus")).toBe("identity");
  });
});

describe("every path outside /v1 answers as the API does, over a real socket", () => {
  let service: TestService;
  let server: RunningServer;
  const agent = new Agent({ keepAlive: true, maxSockets: 1 });
  beforeAll(async () => {
    service = await createTestService();
    server = await startTestServer(service.app, service.serving);
  });
  afterAll(async () => {
    agent.destroy();
    await server?.close();
    service?.close();
  });

  interface Answer { status: number; reason: string; headers: Record<string, string | string[] | undefined>; body: Buffer; socket: unknown }
  const fetchRaw = (path: string, headers: Record<string, string> = {}) =>
    new Promise<Answer>((resolve, reject) => {
      httpGet(server.url + path, { agent, headers }, (res) => {
        const chunks: Buffer[] = [];
        res.on("data", (chunk: Buffer) => chunks.push(chunk));
        res.on("end", () => resolve({ status: res.statusCode!, reason: res.statusMessage!, headers: res.headers, body: Buffer.concat(chunks), socket: res.socket }));
      }).on("error", reject);
    });

  it("reason phrase, keep-alive, Content-Length (never chunked), request id and x-service-snapshot on each, on one connection", async () => {
    const asset = scriptsOf((await fetchRaw("/docs")).body.toString())[1]!;
    const paths = [...publicRoutes.map((route) => route.path), ...referencePaths.map((reference) => reference.path), asset];
    const sockets = new Set<unknown>();
    for (const path of paths) {
      for (const acceptEncoding of ["identity", "br"]) {
        const res = await fetchRaw(path, { "accept-encoding": acceptEncoding });
        expect(res.status, path).toBe(200);
        expect(res.reason, path).toBe("OK");
        expect(res.headers.connection, path).toBe("keep-alive");
        expect(res.headers["transfer-encoding"], path).toBeUndefined();
        expect(Number(res.headers["content-length"]), path).toBe(res.body.length);
        expect(res.headers["x-service-request-id"], path).toMatch(REQUEST_ID);
        expect(res.headers["x-service-snapshot"], path).toBe(service.serving.contentHash);
        if (path !== asset && acceptEncoding === "identity") {
          const headers = new Headers(Object.entries(res.headers).map(([name, value]) => [name, String(value)]));
          openApiContract().expectDescribed("GET", path, { status: res.status, headers, text: res.body.toString("utf8") });
        }
        sockets.add(res.socket);
      }
    }
    expect(sockets.size).toBe(1);
    const etag = (await fetchRaw("/openapi.json")).headers.etag as string;
    const notModified = await fetchRaw("/openapi.json", { "if-none-match": etag });
    expect([notModified.status, notModified.reason, notModified.headers["x-service-snapshot"]]).toEqual([304, STATUS_CODES[304], service.serving.contentHash]);
  });
});

describe("GET /llms.txt", () => {
  it("indexes every published operation with its method, path, cost and scope, and the free paths, from the route table", async () => {
    for (const release of [false, true]) {
      const service = await createTestService({ releaseTrendingProjects: release });
      try {
        const res = await service.app.request("/llms.txt", { headers: { "accept-encoding": "identity" } });
        expect(res.status).toBe(200);
        expect(res.headers.get("content-type")).toBe("text/plain; charset=utf-8");
        expect(res.headers.get("cache-control")).toBe("no-cache");
        const text = await res.text();
        expect(text).toMatch(/^# Curated Entity Intelligence API \(cei\)\n\n> /);
        expect(text).toContain("[OpenAPI 3.1 document](/openapi.json)");
        expect(text).toContain("Authorization: Bearer <API_KEY>");
        const lines = text.split("\n").filter((line) => line.startsWith("- [") && line.includes("/v1/"));
        const published = documentedRoutes(release);
        expect(lines).toHaveLength(published.length);
        published.forEach((route, i) => {
          const { cost, scope } = operationPolicy[route.operation];
          expect(lines[i]).toContain(`[${route.operation}](/openapi.json#/paths/${encodeURIComponent(openApiPath(route.path).replaceAll("/", "~1"))}/${route.method.toLowerCase()})`);
          expect(lines[i]).toContain(`\`${route.method} ${openApiPath(route.path)}\`. ${cost === 1 ? "1 credit" : `${cost} credits`}, ${scope === null ? "no scope" : `scope \`${scope}\``}.`);
        });
        expect(text).toContain("`GET /v1/people/search`. 2 credits, scope `people`. Takes query `query` (required, string of 2-500 characters); query `limit` (integer 1-20, default `10`).");
        expect(text).toContain("query `period` (one of `24h`, `7d`, default `24h`)");
        for (const path of ["/healthz", "/readyz", "/openapi.json", "/docs", "/llms.txt"]) expect(text).toContain(`GET ${path}\``);
        // No key, and never metered: a wrong key changes nothing.
        expect((await service.app.request("/llms.txt", { headers: { authorization: "Bearer nope" } })).status).toBe(200);
      } finally {
        service.close();
      }
    }
  });
});
