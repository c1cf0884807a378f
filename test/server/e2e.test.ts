// End to end through a real HTTP server on an ephemeral port, and `cei serve` itself.
import { spawn } from "node:child_process";
import { copyFileSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { request as httpRequest } from "node:http";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import Database from "better-sqlite3";
import { afterAll, beforeAll, describe, expect, it, onTestFinished } from "vitest";
import { SNAPSHOT_FORMAT_VERSION } from "../../snapshot/schema.ts";
import { xAccountId } from "../../snapshot/x-ids.ts";
import type { RunningServer } from "../../server/listen.ts";
import { openMeterDatabase } from "../../server/meter/sqlite/database.ts";
import { createKey } from "../../server/meter/sqlite/keys.ts";
import { openSnapshot } from "../../snapshot/open.ts";
import { FIXTURE_X_SECRET } from "../_support/fixtures.ts";
import { createTestService, fixtureSnapshot, REQUEST_ID, startTestServer, type TestService } from "../_support/server.ts";
import { openApiContract } from "../_support/openapi.ts";
import { okMeta } from "./_expect.ts";
import { testTempDir } from "../_support/temp.ts";

let service: TestService;
let server: RunningServer;
beforeAll(async () => {
  service = await createTestService();
  server = await startTestServer(service.app);
});
afterAll(async () => {
  await server.close();
  service.close();
});

/** Every answer over HTTP must be one the OpenAPI document describes (headers as sent on the wire). */
async function described(method: string, url: string, res: Response, releaseTrendingProjects = false): Promise<Response> {
  const text = await res.clone().text();
  openApiContract(releaseTrendingProjects).expectDescribed(method, url, { status: res.status, headers: res.headers, text });
  return res;
}

function rawRequest(path: string, headers: Record<string, string>): Promise<{ status: number; headers: Record<string, unknown>; body: string }> {
  return new Promise((resolve, reject) => {
    const url = new URL(path, server.url);
    const req = httpRequest(url, { headers }, (res) => {
      let body = "";
      res.setEncoding("utf8");
      res.on("data", (chunk: string) => (body += chunk));
      res.on("end", () => {
        const headers = new Headers();
        for (const [name, value] of Object.entries(res.headers)) if (typeof value === "string") headers.set(name, value);
        openApiContract().expectDescribed("GET", path, { status: res.statusCode!, headers, text: body });
        resolve({ status: res.statusCode!, headers: res.headers, body });
      });
    });
    req.on("error", reject);
    req.end();
  });
}

describe("over HTTP", () => {
  it("serves an operation with the envelope and headers", async () => {
    const { key } = service.newKey();
    const res = await described("GET", "/v1/projects/aurora-swap", await fetch(`${server.url}/v1/projects/aurora-swap`, { headers: { authorization: `Bearer ${key}` } }));
    expect(res.status).toBe(200);
    expect(res.headers.get("content-type")).toBe("application/json; charset=utf-8");
    expect(res.headers.get("cache-control")).toBe("no-store");
    expect(res.headers.get("x-service-request-id")).toMatch(REQUEST_ID);
    const body = (await res.json()) as Record<string, unknown>;
    expect(body).toEqual({ data: { type: "project", id: "proj_aurora", slug: "aurora-swap", name: "Aurora Swap" }, meta: okMeta(1, 999) });
    expect(Number(res.headers.get("content-length"))).toBe(Buffer.byteLength(JSON.stringify(body)));
  });
  it("takes a JSON search body and answers 401 without a key", async () => {
    const { key } = service.newKey();
    const search = await described("POST", "/v1/search", await fetch(`${server.url}/v1/search`, {
      method: "POST", headers: { authorization: `Bearer ${key}`, "content-type": "application/json" }, body: JSON.stringify({ q: "btc" }),
    }));
    expect(((await search.json()) as { data: { results: unknown } }).data.results).toEqual([{ type: "token", id: "tok_btc", symbol: "BTC", name: "Bitcoin" }]);
    const anonymous = await described("POST", "/v1/search", await fetch(`${server.url}/v1/search`, { method: "POST" }));
    expect(anonymous.status).toBe(401);
    expect(((await anonymous.json()) as { error: { code: string } }).error.code).toBe("INVALID_API_KEY");
  });
  it("rejects a chunked body over 16 KiB with 422", async () => {
    const { key } = service.newKey();
    const chunks = new ReadableStream({
      start(controller) {
        controller.enqueue(new TextEncoder().encode(`{"q":"btc","pad":"${"x".repeat(20_000)}"}`));
        controller.close();
      },
    });
    const res = await described("POST", "/v1/search", await fetch(`${server.url}/v1/search`, {
      method: "POST", headers: { authorization: `Bearer ${key}`, "content-type": "application/json" }, body: chunks, duplex: "half",
    } as RequestInit));
    expect(res.status).toBe(422);
    expect(((await res.json()) as { error: { details: unknown } }).error.details).toEqual([{ path: "body", message: expect.any(String), code: "body_too_large" }]);
  });
  it("answers oversized headers with a JSON 422", async () => {
    const res = await rawRequest("/v1/projects/aurora-swap", { "x-padding": "x".repeat(20_000) });
    expect(res.status).toBe(422);
    expect(res.headers["content-type"]).toBe("application/json; charset=utf-8");
    expect(res.headers["cache-control"]).toBe("no-store");
    const body = JSON.parse(res.body);
    expect(body.error).toEqual({
      code: "INVALID_REQUEST", message: expect.any(String),
      details: [{ path: "headers", message: expect.any(String), code: "headers_too_large" }],
    });
    expect(body.meta.request_id).toBe(res.headers["x-service-request-id"]);
  });
});

describe("openSnapshot", () => {
  it("refuses a snapshot of another format version, with a clear message", async () => {
    const file = join(testTempDir("cei-format-"), "snapshot.db");
    copyFileSync(await fixtureSnapshot(), file);
    const db = new Database(file);
    db.prepare("UPDATE manifest SET value = ? WHERE key = 'format_version'").run(String(SNAPSHOT_FORMAT_VERSION + 1));
    db.close();
    expect(() => openSnapshot(file)).toThrow(
      `format version ${SNAPSHOT_FORMAT_VERSION + 1}, but this server reads version ${SNAPSHOT_FORMAT_VERSION}`,
    );
  });
  it("refuses a snapshot of the previous format (which stored the handle-search key), saying to recompile", async () => {
    const file = join(testTempDir("cei-format-"), "snapshot.db");
    copyFileSync(await fixtureSnapshot(), file);
    const db = new Database(file);
    db.prepare("UPDATE manifest SET value = ? WHERE key = 'format_version'").run(String(SNAPSHOT_FORMAT_VERSION - 1));
    db.close();
    expect(() => openSnapshot(file)).toThrow(new RegExp(`format version ${SNAPSHOT_FORMAT_VERSION - 1}, but this server reads version ${SNAPSHOT_FORMAT_VERSION}; recompile it`));
  });
  it("refuses a missing file and a file that is not a snapshot", () => {
    const dir = testTempDir("cei-nosnap-");
    expect(() => openSnapshot(join(dir, "missing.db"))).toThrow();
    new Database(join(dir, "empty.db")).close();
    expect(() => openSnapshot(join(dir, "empty.db"))).toThrow(/not a cei snapshot/);
  });
  it("opens read-only", async () => {
    const snapshot = openSnapshot(await fixtureSnapshot());
    expect(() => snapshot.prepare("DELETE FROM projects").run()).toThrow(/readonly/);
    snapshot.close();
  });
});

describe("cei serve", () => {
  it("serves the snapshot and releases trending projects only when asked", async () => {
    const dir = testTempDir("cei-serve-");
    const meterFile = join(dir, "meter.db");
    const admin = openMeterDatabase(meterFile);
    const { key } = createKey(admin, { tier: "pro", credits: 10 }, Date.now());
    admin.close();
    const child = spawn(process.execPath, ["bin/cei.js", "serve", "--snapshot", await fixtureSnapshot(), "--meter", meterFile, "--port", "0"], {
      env: { ...process.env, CEI_RELEASE_TRENDING_PROJECTS: "1" },
      stdio: ["ignore", "pipe", "pipe"],
    });
    try {
      const url = await new Promise<string>((resolve, reject) => {
        let out = "";
        child.stdout.on("data", (chunk: Buffer) => {
          out += chunk.toString();
          const match = /on (http:\/\/\S+)/.exec(out);
          if (match) resolve(match[1]!);
        });
        child.once("exit", (code) => reject(new Error(`cei serve exited with ${code}`)));
      });
      const res = await described("GET", "/v1/projects/aurora-swap", await fetch(`${url}/v1/projects/aurora-swap`, { headers: { authorization: `Bearer ${key}` } }), true);
      expect(res.status).toBe(200);
      expect(((await res.json()) as { data: { id: string } }).data.id).toBe("proj_aurora");
      // Released: the route exists (the fixture's trend snapshot is stale on today's date: 500, not 404).
      const trending = await described("GET", "/v1/projects/trending", await fetch(`${url}/v1/projects/trending`, { headers: { authorization: `Bearer ${key}` } }), true);
      expect(trending.status).not.toBe(404);
    } finally {
      child.kill("SIGTERM");
    }
  }, 30_000);
});

describe("cei serve and the X secret", () => {
  /** Starts `cei serve` on the given snapshot; resolves with its URL and stderr, or its exit. */
  async function serve(snapshot: string, args: string[], env: Record<string, string> = {}) {
    const dir = mkdtempSync(join(tmpdir(), "cei-serve-x-"));
    const meterFile = join(dir, "meter.db");
    const admin = openMeterDatabase(meterFile);
    const { key } = createKey(admin, { tier: "pro", credits: 10 }, Date.now());
    admin.close();
    const childEnv: Record<string, string | undefined> = { ...process.env, ...env };
    if (!("CEI_X_SECRET" in env)) delete childEnv.CEI_X_SECRET;
    const child = spawn(process.execPath, ["bin/cei.js", "serve", "--snapshot", snapshot, "--meter", meterFile, "--port", "0", ...args], {
      env: childEnv, stdio: ["ignore", "pipe", "pipe"],
    });
    let stderr = "";
    child.stderr.on("data", (chunk: Buffer) => (stderr += chunk.toString()));
    const started = await new Promise<{ url?: string; code?: number | null }>((resolve) => {
      let out = "";
      child.stdout.on("data", (chunk: Buffer) => {
        out += chunk.toString();
        const match = /on (http:\/\/\S+)/.exec(out);
        if (match) resolve({ url: match[1]! });
      });
      child.once("exit", (code) => resolve({ code }));
    });
    onTestFinished(() => {
      child.kill("SIGTERM");
      rmSync(dir, { recursive: true, force: true });
    });
    const searchHandle = async () => {
      const res = await fetch(`${started.url}/v1/search`, {
        method: "POST", headers: { authorization: `Bearer ${key}`, "content-type": "application/json" }, body: JSON.stringify({ q: "@AuroraSwapHQ" }),
      });
      return ((await res.json()) as { data: { results: unknown[] } }).data.results;
    };
    return { ...started, stderr: () => stderr, searchHandle };
  }

  it("finds X accounts by handle with the compiler's secret from --x-secret-file", async () => {
    const secretFile = join(mkdtempSync(join(tmpdir(), "cei-secret-")), "x-secret");
    writeFileSync(secretFile, FIXTURE_X_SECRET + "\n", { mode: 0o600 });
    onTestFinished(() => rmSync(dirname(secretFile), { recursive: true, force: true }));
    const server = await serve(await fixtureSnapshot(), ["--x-secret-file", secretFile]);
    expect(await server.searchHandle()).toEqual([{ type: "x_account", id: xAccountId(FIXTURE_X_SECRET, "AuroraSwapHQ") }]);
  }, 30_000);

  it("without a secret, warns at start-up and finds no X account by handle", async () => {
    const server = await serve(await fixtureSnapshot(), []);
    expect(server.stderr()).toContain("no X secret");
    expect(await server.searchHandle()).toEqual([]);
  }, 30_000);

  it("refuses a snapshot of the previous format, saying to recompile", async () => {
    const file = join(mkdtempSync(join(tmpdir(), "cei-format-")), "snapshot.db");
    onTestFinished(() => rmSync(dirname(file), { recursive: true, force: true }));
    copyFileSync(await fixtureSnapshot(), file);
    const db = new Database(file);
    db.prepare("UPDATE manifest SET value = ? WHERE key = 'format_version'").run(String(SNAPSHOT_FORMAT_VERSION - 1));
    db.close();
    const server = await serve(file, []);
    expect(server.code).toBe(1);
    expect(server.stderr()).toMatch(new RegExp(`format version ${SNAPSHOT_FORMAT_VERSION - 1}, but this server reads version ${SNAPSHOT_FORMAT_VERSION}; recompile it`));
  }, 30_000);
});
