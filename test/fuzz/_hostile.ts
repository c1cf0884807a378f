// Hostile requests for the properties of hostile-input.test.ts and `npm run fuzz`: every route's
// path, query, body and headers, filled with values a client should never send, next to valid
// ones so that the deeper checks are reached too. Sent over a real socket, exactly as generated.
import { request as httpRequest, type Agent } from "node:http";
import { connect } from "node:net";
import { fc } from "@fast-check/vitest";
import { routes } from "../../server/routes.ts";

/** The keys a request may present; each one's state is set up by the suite. */
export interface HostileKeys {
  /** Active, every scope, a large balance. */
  rich: string;
  /** Active, no credits left. */
  broke: string;
  /** Active, free tier (60 requests a minute): its window is used up before the run. */
  free: string;
  /** Active, only the `search` scope. */
  narrow: string;
  revoked: string;
}

export interface HostileRequest {
  method: string;
  path: string;
  headers: Record<string, string>;
  body?: string;
  /** Send the body in this many chunks (Transfer-Encoding: chunked) instead of with Content-Length. */
  chunks?: number;
}

/** Values of the fixtures (fixtures/valid), so that valid requests reach the operations' data. */
const KNOWN_VALUES = [
  "aurora-swap", "alice-nakamoto", "tok_aur", "berlin-node-day", "trending",
  "story:11111111-1111-4111-8111-111111111111", "xa_wqzvo7hriklvfiutr25qfkq6hf",
];

const QUERY_NAMES = ["limit", "period", "region", "date", "entity_type", "query", "sort", "type", "__proto__", "constructor", "toString", "hasOwnProperty"];

/** Text no API value should hold: controls, bidi overrides, NUL, quotes, SQL and path fragments. */
const nasty = fc.constantFrom(
  "", " ", "%00", "%zz", "%", "%C3%28", "..", "../..", "%2e%2e%2f", "'", "\"", "' OR 1=1 --", "%27%3B DROP TABLE keys;--",
  "\u202e", "%E2%80%AE", "\u0000", "%0d%0aSet-Cookie:%20x=1", "NaN", "Infinity", "-1", "0", "1e3", "0x10", "9".repeat(40),
  "a".repeat(161), "%F0%9F%92%A9", "null", "true", "[]", "{}", "2026-02-30", "2026-03-01", "24h", "7d", "all", "us", "project",
);

const encoded = fc.string({ unit: "grapheme", maxLength: 40 }).map((text) => encodeURIComponent(text));

/** What an HTTP client can put in a request target: anything else is percent-encoded (raw bytes are malformedHttp's). */
const targetSafe = (target: string) =>
  target.replace(/[^\x21-\x7e]/gu, (char) => [...Buffer.from(char, "utf8")].map((byte) => `%${byte.toString(16).toUpperCase().padStart(2, "0")}`).join(""));

/** A value for a path parameter or a query parameter. */
const value = fc.oneof(
  { weight: 3, arbitrary: fc.constantFrom(...KNOWN_VALUES) },
  { weight: 3, arbitrary: nasty },
  { weight: 2, arbitrary: encoded },
  { weight: 1, arbitrary: fc.integer({ min: -5, max: 120 }).map(String) },
);

const templates = routes.map((route) => ({ method: route.method, path: route.path }));

/** A path: a route's template with hostile parameters, a route with a segment added or cut, or any path. */
const path = fc.oneof(
  { weight: 6, arbitrary: fc.tuple(fc.constantFrom(...templates), fc.array(value, { minLength: 3, maxLength: 3 })).map(([template, values]) => {
    let i = 0;
    return template.path.replace(/:[A-Za-z_]+/g, () => values[i++]!);
  }) },
  { weight: 1, arbitrary: fc.tuple(fc.constantFrom(...templates), fc.constantFrom("/", "//", "/x", "/.", "%2F", ";a=b")).map(([template, suffix]) => template.path.replace(/:[A-Za-z_]+/g, "aurora-swap") + suffix) },
  { weight: 1, arbitrary: fc.array(encoded, { maxLength: 5 }).map((segments) => "/" + segments.join("/")) },
  { weight: 1, arbitrary: fc.constantFrom("/v1", "/v1/", "/", "/V1/projects/aurora-swap", "/v1/projects", "/v1/key/", "/healthz/x", "/openapi.json/..") },
);

const query = fc.array(fc.tuple(fc.oneof(fc.constantFrom(...QUERY_NAMES), encoded), value), { maxLength: 24 })
  .map((pairs) => (pairs.length === 0 ? "" : "?" + pairs.map(([name, v]) => `${name}=${v}`).join("&")));

const searchLike = fc.record({
  q: fc.oneof(fc.constantFrom("au", "aurora", "alice", "*", "%", "__", "ab", "\u202eab"), fc.string({ maxLength: 30 }), fc.integer()),
  types: fc.oneof(fc.constant(undefined), fc.array(fc.oneof(fc.constantFrom("project", "fund", "person", "token", "stock", "x_account", "news", "event"), fc.string({ maxLength: 8 }), fc.integer()), { maxLength: 9 })),
  limit: fc.oneof(fc.constant(undefined), fc.integer({ min: -3, max: 40 }), fc.constantFrom("5", 2.5, null)),
}, { requiredKeys: [] });

const body = fc.oneof(
  { weight: 4, arbitrary: searchLike.map((record) => JSON.stringify(record)) },
  { weight: 2, arbitrary: fc.json({ maxDepth: 3 }) },
  { weight: 1, arbitrary: fc.string({ unit: "binary", maxLength: 200 }) },
  { weight: 1, arbitrary: fc.constantFrom("", "{", "{\"q\":\"au\",}", "{\"q\":\"au\",\"q\":\"al\"}", "[]", "null", "\ufeff{\"q\":\"au\"}") },
  { weight: 1, arbitrary: fc.integer({ min: 15_000, max: 40_000 }).map((size) => JSON.stringify({ q: "au", pad: "x".repeat(size) })) },
);

export function hostileRequest(keys: HostileKeys): fc.Arbitrary<HostileRequest> {
  const authorization = fc.oneof(
    { weight: 6, arbitrary: fc.constantFrom(`Bearer ${keys.rich}`, `bearer ${keys.rich}`) },
    { weight: 1, arbitrary: fc.constantFrom(`Bearer ${keys.broke}`, `Bearer ${keys.free}`, `Bearer ${keys.narrow}`, `Bearer ${keys.revoked}`) },
    { weight: 1, arbitrary: fc.constantFrom(undefined, "", "Bearer", "Bearer ", "Basic dXNlcjpwYXNz", `Bearer ${keys.rich}x`, `Bearer  ${keys.rich}`, "Bearer cei_" + "A".repeat(300)) },
  );
  const contentType = fc.constantFrom(undefined, "application/json", "application/json; charset=utf-8", "text/plain", "application/x-www-form-urlencoded", "application/json; charset=latin1");
  const method = fc.oneof({ weight: 8, arbitrary: fc.constant("route") }, { weight: 1, arbitrary: fc.constantFrom("GET", "POST", "HEAD", "PUT", "DELETE", "OPTIONS", "PATCH") });
  return fc.record({
    method,
    path,
    query,
    authorization,
    contentType,
    body: fc.option(body, { freq: 2 }),
    chunks: fc.option(fc.integer({ min: 1, max: 8 }), { freq: 3 }),
    extra: fc.option(fc.constantFrom<Record<string, string>>(
      { expect: "100-continue" }, { "x-forwarded-for": "1.2.3.4" }, { "content-encoding": "gzip" }, { accept: "text/html" }, { "x-padding": "p".repeat(4_000) },
    ), { freq: 4 }),
  }).map(({ method: chosen, path: target, query: search, authorization: auth, contentType: type, body: text, chunks, extra }) => {
    const template = templates.find((candidate) => target.startsWith(candidate.path.split("/:")[0]!));
    const verb = chosen === "route" ? (template?.method ?? "GET") : chosen;
    const headers: Record<string, string> = { ...(extra ?? {}) };
    if (auth !== undefined) headers.authorization = auth;
    if (type !== undefined) headers["content-type"] = type;
    const request: HostileRequest = { method: verb, path: targetSafe(target + search), headers };
    if (text !== null && verb !== "GET" && verb !== "HEAD") request.body = text;
    if (request.body !== undefined && chunks !== null) request.chunks = chunks;
    return request;
  });
}

export interface HostileAnswer { status: number; headers: Headers; text: string }

/** Sends the request as generated (no normalisation of the path), on a keep-alive agent. */
export function send(baseUrl: string, agent: Agent, request: HostileRequest): Promise<HostileAnswer> {
  const { hostname, port } = new URL(baseUrl);
  const body = request.body === undefined ? undefined : Buffer.from(request.body, "utf8");
  const headers = { ...request.headers };
  // Framing said explicitly: Node's client would send a DELETE or OPTIONS body unframed otherwise.
  if (body !== undefined) {
    if (request.chunks === undefined) headers["content-length"] = String(body.length);
    else headers["transfer-encoding"] = "chunked";
  }
  return new Promise((resolve, reject) => {
    const outgoing = httpRequest({ host: hostname, port, method: request.method, path: request.path, headers, agent }, (response) => {
      const parts: Buffer[] = [];
      response.on("data", (part: Buffer) => parts.push(part));
      response.on("end", () => {
        const received = new Headers();
        for (const [name, raw] of Object.entries(response.headers)) {
          if (raw !== undefined) received.set(name, Array.isArray(raw) ? raw.join(", ") : raw);
        }
        resolve({ status: response.statusCode ?? 0, headers: received, text: Buffer.concat(parts).toString("utf8") });
      });
      response.on("error", reject);
    });
    outgoing.on("error", reject);
    if (body === undefined || request.chunks === undefined) {
      outgoing.end(body);
    } else {
      const size = Math.ceil(body.length / request.chunks) || 1;
      for (let at = 0; at < body.length; at += size) outgoing.write(body.subarray(at, at + size));
      outgoing.end();
    }
  });
}

/** Bytes that are not a well-formed HTTP/1.1 request, or test its edges. */
export const malformedHttp = fc.oneof(
  fc.constantFrom(
    "GET / HTTP/1.1\r\n\r\n",
    "GET /v1/key HTTP/1.1\r\nHost: x\r\nExpect: 200-ok\r\n\r\n",
    "GET /v1/key HTTP/1.1\r\nHost: x\r\nContent-Length: 5\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\n",
    "POST /v1/search HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\nContent-Type: application/json\r\n\r\nzz\r\n",
    "GET /v1/key HTTP/9.9\r\nHost: x\r\n\r\n",
    "GET /v1/key\r\n\r\n",
    "\r\n\r\n",
    "GET /v1/key HTTP/1.1\r\nHost: x\r\nX: " + "a".repeat(20_000) + "\r\n\r\n",
    "GET /v1/k\u0000ey HTTP/1.1\r\nHost: x\r\n\r\n",
    "GET /v1/key HTTP/1.1\r\nHost: x\r\nBad Header: 1\r\n\r\n",
  ),
  fc.string({ unit: "binary", minLength: 1, maxLength: 300 }),
  fc.tuple(fc.constantFrom("GET", "POST", "BREW", "G E T"), fc.string({ unit: "grapheme-ascii", maxLength: 60 }), fc.constantFrom("HTTP/1.1", "HTTP/1.0", "HTTP/2", ""))
    .map(([verb, target, version]) => `${verb} ${target} ${version}\r\nHost: x\r\n\r\n`),
);

/** Writes `bytes` on a new connection and returns everything the server sent before it closed (or `waitMs` passed). */
export function sendRaw(baseUrl: string, bytes: string, waitMs: number): Promise<string> {
  const { hostname, port } = new URL(baseUrl);
  return new Promise((resolve) => {
    const socket = connect(Number(port), hostname);
    const parts: Buffer[] = [];
    const done = () => {
      clearTimeout(timer);
      socket.destroy();
      resolve(Buffer.concat(parts).toString("latin1"));
    };
    const timer = setTimeout(done, waitMs);
    socket.on("data", (part: Buffer) => parts.push(part));
    socket.on("close", done);
    socket.on("error", done);
    socket.write(Buffer.from(bytes, "latin1"));
  });
}
