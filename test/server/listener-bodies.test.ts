// What the listener does with refused bodies and with requests it answers by itself, over raw
// keep-alive sockets to a real server: the next request on the connection is always answered, or
// the connection is closed with `Connection: close`; every answer is the JSON envelope. On both listeners.
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { startServer, type RunningServer } from "../../server/listen.ts";
import { startListhenServer } from "../../server/listen-listhen.ts";
import { createTestService, REQUEST_ID, type TestService } from "../_support/server.ts";
import { chunkedPieces, connectionPool, type RawResponse } from "../_support/raw-http.ts";

let service: TestService;
let server: RunningServer;
let key: string;
const pool = connectionPool();
beforeAll(async () => {
  service = await createTestService();
  key = service.newKey({ tier: "internal", credits: 1_000_000 }).key;
});
afterEach(() => pool.destroyAll());
afterAll(() => service.close());

const validRequest = () => `GET /v1/projects/aurora-swap HTTP/1.1\r\nHost: test\r\nAuthorization: Bearer ${key}\r\n\r\n`;
const searchHead = (headers: string) => `POST /v1/search HTTP/1.1\r\nHost: test\r\nAuthorization: Bearer ${key}\r\n${headers}\r\n`;

function expectInvalid(response: RawResponse | "closed", detail: { path: string; code: string }): void {
  if (response === "closed") throw new Error("the connection closed without an answer");
  expect(response.status).toBe(422);
  expect(response.headers["content-type"]).toBe("application/json; charset=utf-8");
  expect(response.headers["cache-control"]).toBe("no-store");
  expect(response.headers["x-service-credits-used"]).toBe("0");
  expect(response.headers["x-service-request-id"]).toMatch(REQUEST_ID);
  const body = JSON.parse(response.body);
  expect(body.error).toEqual({ code: "INVALID_REQUEST", message: expect.any(String), details: [{ ...detail, message: expect.any(String) }] });
  expect(body.meta.request_id).toBe(response.headers["x-service-request-id"]);
  expect(body.meta.credits_used).toBe(0);
}

function expectProject(response: RawResponse | "closed"): void {
  if (response === "closed") throw new Error("the connection closed before the next request was answered");
  expect(response.status).toBe(200);
  expect(JSON.parse(response.body).data.slug).toBe("aurora-swap");
}

/** Both listeners answer alike: our node:http server, and listhen's (npm start). */
for (const [listener, start] of [["node:http", startServer], ["listhen", startListhenServer]] as const) {
describe(listener, () => {
  beforeAll(async () => {
    server = await start(service.app, { port: 0, host: "127.0.0.1" });
    return () => server.close();
  });

  describe("a search body refused before it was read to its end", () => {
    it("is drained: chunked bodies of 16 KiB to 1 MiB in 1 to 64 chunks, each followed by an answered request on the same connection", async () => {
      const connection = await pool.open(server.url);
      const sizes = [16 * 1024 + 1, 64 * 1024, 256 * 1024, 1024 * 1024];
      for (const size of sizes) {
        for (const pieces of [1, 2, 7, 64]) {
          await connection.write(searchHead("Content-Type: application/json\r\nTransfer-Encoding: chunked\r\n"));
          // Pieces written one by one, with turns of the event loop between, so the server reads them apart.
          for (const piece of chunkedPieces(size, pieces, "[")) {
            await connection.write(piece);
            await new Promise((resolve) => setImmediate(resolve));
          }
          await connection.write(validRequest());
          const refused = await connection.nextResponse();
          expectInvalid(refused, { path: "body", code: "body_too_large" });
          expect((refused as RawResponse).headers.connection).toBe("keep-alive");
          expectProject(await connection.nextResponse());
        }
      }
    });

    it("is drained when its content type is wrong or its declared length is over 16 KiB", async () => {
      const connection = await pool.open(server.url);
      await connection.write(searchHead("Content-Type: text/plain\r\nTransfer-Encoding: chunked\r\n") + chunkedPieces(64 * 1024, 3).join("") + validRequest());
      expectInvalid(await connection.nextResponse(), { path: "body", code: "unsupported_media_type" });
      expectProject(await connection.nextResponse());
      const declared = 20_000;
      await connection.write(searchHead(`Content-Type: application/json\r\nContent-Length: ${declared}\r\n`) + "x".repeat(declared) + validRequest());
      expectInvalid(await connection.nextResponse(), { path: "body", code: "body_too_large" });
      expectProject(await connection.nextResponse());
    });

    it("is refused before it is read when it is encoded (Content-Encoding, or a transfer coding besides chunked), then drained", async () => {
      const connection = await pool.open(server.url);
      const plain = '{"q":"aurora"}';
      // Plain bytes labelled gzip: a proxy that decodes would see another request; answered 422, not searched.
      for (const encoding of ["gzip", "br", "GZIP", "identity, gzip", "deflate"]) {
        await connection.write(searchHead(`Content-Type: application/json\r\nContent-Encoding: ${encoding}\r\nContent-Length: ${plain.length}\r\n`) + plain + validRequest());
        expectInvalid(await connection.nextResponse(), { path: "body", code: "unsupported_encoding" });
        expectProject(await connection.nextResponse());
      }
      await connection.write(searchHead("Content-Type: application/json\r\nTransfer-Encoding: gzip, chunked\r\n") + chunkedPieces(64, 2).join("") + validRequest());
      expectInvalid(await connection.nextResponse(), { path: "body", code: "unsupported_encoding" });
      expectProject(await connection.nextResponse());
      // identity (any case) and chunked are the body as it stands.
      await connection.write(searchHead(`Content-Type: application/json\r\nContent-Encoding: Identity\r\nContent-Length: ${plain.length}\r\n`) + plain);
      const searched = await connection.nextResponse();
      if (searched === "closed") throw new Error("closed without an answer");
      expect(searched.status).toBe(200);
      expect(JSON.parse(searched.body).data.results.map((r: { slug?: string }) => r.slug)).toContain("aurora-swap");
    });

    it("gets Connection: close when it is too large to drain", async () => {
      const connection = await pool.open(server.url);
      await connection.write(searchHead("Content-Type: application/json\r\nContent-Length: 4194304\r\n"));
      const refused = await connection.nextResponse();
      expectInvalid(refused, { path: "body", code: "body_too_large" });
      expect((refused as RawResponse).headers.connection).toBe("close");
      await connection.closed;
    });

    it("gets Connection: close when the answer came before the body (401) and the body is chunked", async () => {
      const connection = await pool.open(server.url);
      await connection.write("POST /v1/search HTTP/1.1\r\nHost: test\r\nContent-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\n4\r\n{\"q\"\r\n");
      const refused = await connection.nextResponse();
      if (refused === "closed") throw new Error("closed without an answer");
      expect(refused.status).toBe(401);
      expect(refused.headers.connection).toBe("close");
      await connection.closed;
    });
  });

  describe("answers the HTTP layer gives by itself", () => {
    it("an HTTP/1.1 request without Host", async () => {
      const connection = await pool.open(server.url);
      await connection.write(`GET /v1/projects/aurora-swap HTTP/1.1\r\nAuthorization: Bearer ${key}\r\n\r\n`);
      const answer = await connection.nextResponse();
      expectInvalid(answer, { path: "headers", code: "missing_host" });
      expect((answer as RawResponse).headers.connection).toBe("close");
      await connection.closed;
    });

    it("an Expect other than 100-continue", async () => {
      const connection = await pool.open(server.url);
      await connection.write(`GET /v1/projects/aurora-swap HTTP/1.1\r\nHost: test\r\nExpect: 200-ok\r\nAuthorization: Bearer ${key}\r\n\r\n`);
      expectInvalid(await connection.nextResponse(), { path: "headers", code: "unsupported_expectation" });
      await connection.closed;
    });

    it("Expect: 100-continue is met and the request served", async () => {
      const connection = await pool.open(server.url);
      const body = JSON.stringify({ q: "btc" });
      await connection.write(searchHead(`Content-Type: application/json\r\nContent-Length: ${body.length}\r\nExpect: 100-continue\r\n`));
      await expect.poll(() => connection.pending()).toMatch(/^HTTP\/1\.1 100 Continue\r\n/);
      await connection.write(body);
      const answer = await connection.nextResponse();
      expect(answer !== "closed" && answer.status).toBe(200);
    });

    it("a malformed request line", async () => {
      const connection = await pool.open(server.url);
      await connection.write("GARBAGE\r\n\r\n");
      expectInvalid(await connection.nextResponse(), { path: "request", code: "malformed_request" });
      await connection.closed;
    });

    it("headers over 16 KiB", async () => {
      const connection = await pool.open(server.url);
      await connection.write(`GET /v1/projects/aurora-swap HTTP/1.1\r\nHost: test\r\nX-Padding: ${"x".repeat(20_000)}\r\n\r\n`);
      expectInvalid(await connection.nextResponse(), { path: "headers", code: "headers_too_large" });
      await connection.closed;
    });
  });
});
}
