// The baselines the service is measured against, each run alone in a child process:
//   raw  — node:http answering a fixed JSON body
//   h3   — a bare h3 app answering the same body through the same listener as `cei serve`
// Usage: node --import tsx bench/_baseline-server.ts <raw|h3> <port, 0 for any> <body-bytes>
// Prints "ready http://127.0.0.1:<port>" once listening.
import { createServer, type RequestListener } from "node:http";
import { H3, HTTPResponse, toNodeHandler } from "h3";

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
