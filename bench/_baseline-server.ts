// The baselines the service is measured against, each run alone in a child process:
//   raw      — node:http answering a fixed JSON body
//   h3       — a bare h3 app answering the same body through the same listener as `cei serve`
//   h3-reply — the same app answering as cei does: the same response class (srvx's FastResponse),
//              a new request id each time, and cei's nine headers with values of their lengths:
//              what sending cei's answer costs, without anything cei does to decide it
// Usage: node --import tsx bench/_baseline-server.ts <raw|h3|h3-reply> <port, 0 for any> <body-bytes>
// Prints "ready http://127.0.0.1:<port>" once listening.
import { createServer, type RequestListener } from "node:http";
import { randomUUID } from "node:crypto";
import { H3, HTTPResponse, toNodeHandler } from "h3";
import { FastResponse } from "srvx/node";

const [kind, portArg, bytesArg] = process.argv.slice(2);
const port = Number(portArg);
const body = fixedJsonBody(Number(bytesArg));

function fixedJsonBody(bytes: number): string {
  const shell = { data: { kind: "baseline", padding: "" }, meta: { request_id: "req_baseline00000000" } };
  const overhead = JSON.stringify(shell).length;
  shell.data.padding = "x".repeat(Math.max(0, bytes - overhead));
  return JSON.stringify(shell);
}

let handler: RequestListener;
if (kind === "raw") {
  handler = (_req, res) => {
    res.writeHead(200, { "content-type": "application/json", "cache-control": "no-store" });
    res.end(body);
  };
} else if (kind === "h3") {
  // HTTPResponse is h3's own light response (what cei answers with); a web Response would cost
  // the baseline half its throughput through undici and make the comparison flatter than it is.
  const app = new H3().all("/**", () => new HTTPResponse(body, { headers: { "content-type": "application/json", "cache-control": "no-store" } }));
  handler = toNodeHandler(app) as unknown as RequestListener;
} else if (kind === "h3-reply") {
  const snapshot = "0".repeat(64);
  const app = new H3().all("/**", (event) => {
    event.runtime?.node?.res?.setHeader("x-service-snapshot", snapshot);
    const requestId = `req_${randomUUID()}`;
    return new FastResponse(body, {
      status: 200, statusText: "OK",
      headers: {
        "content-type": "application/json; charset=utf-8", "cache-control": "no-store",
        "x-service-request-id": requestId, "x-service-credits-used": "1", "x-service-credits-remaining": "999999999999",
        "x-service-rate-limit": "limit=1000000;remaining=999999;reset_at=2026-11-25T09:44:00.000Z;tier=internal",
        "ratelimit-policy": '"default";q=1000000;w=60', ratelimit: '"default";r=999999;t=46',
      },
    });
  });
  handler = toNodeHandler(app) as unknown as RequestListener;
} else {
  throw new Error(`unknown baseline ${kind}`);
}

const server = createServer(handler);
server.keepAliveTimeout = 60_000;
server.listen(port, "127.0.0.1", () => {
  const address = server.address();
  const actual = address !== null && typeof address === "object" ? address.port : port;
  process.stdout.write(`ready http://127.0.0.1:${actual}\n`);
});
process.on("SIGTERM", () => {
  server.close(() => process.exit(0));
  server.closeAllConnections();
});
