// The listener: node:http with h3's toNodeHandler (the same listener the benchmark's h3 baseline
// uses). h3's `serve` (srvx) was the alternative; node:http was kept because it gives direct access
// to the server's 'clientError' event, needed to answer oversized or malformed requests with JSON.
import { createServer, type Server } from "node:http";
import type { Socket } from "node:net";
import { toNodeHandler, type H3 } from "h3";
import { newRequestId } from "./_respond.ts";

export interface ListenOptions {
  port?: number;
  host?: string;
}

export interface RunningServer {
  url: string;
  server: Server;
  close(): Promise<void>;
}

/** Requests that Node rejects before h3 sees them (e.g. headers over 16 KiB) still get the JSON envelope. */
function _answerClientError(error: NodeJS.ErrnoException, socket: Socket): void {
  if (!socket.writable) {
    socket.destroy();
    return;
  }
  const requestId = newRequestId();
  const tooLarge = error.code === "HPE_HEADER_OVERFLOW";
  const body = JSON.stringify({
    error: {
      code: "INVALID_REQUEST",
      message: tooLarge ? "The request headers are too large." : "The request is not valid HTTP.",
      details: [{ path: "headers", message: tooLarge ? "The request headers are too large." : "The request could not be parsed.", code: tooLarge ? "headers_too_large" : "malformed_request" }],
    },
    meta: { request_id: requestId, credits_used: 0 },
  });
  socket.end(
    "HTTP/1.1 422 Unprocessable Entity\r\n" +
      "content-type: application/json; charset=utf-8\r\n" +
      "cache-control: no-store\r\n" +
      `x-service-request-id: ${requestId}\r\n` +
      "x-service-credits-used: 0\r\n" +
      `content-length: ${Buffer.byteLength(body)}\r\n` +
      "connection: close\r\n\r\n" +
      body,
  );
}

export function startServer(app: H3, options: ListenOptions = {}): Promise<RunningServer> {
  const server = createServer(toNodeHandler(app) as unknown as Parameters<typeof createServer>[0]);
  server.keepAliveTimeout = 60_000;
  server.on("clientError", _answerClientError);
  return new Promise((resolve, reject) => {
    server.once("error", reject);
    server.listen(options.port ?? 0, options.host ?? "127.0.0.1", () => {
      server.off("error", reject);
      const address = server.address();
      if (address === null || typeof address === "string") return reject(new Error("server has no TCP address"));
      const host = address.family === "IPv6" ? `[${address.address}]` : address.address;
      resolve({
        url: `http://${host}:${address.port}`,
        server,
        close: () =>
          new Promise<void>((done, fail) => {
            server.close((error) => (error ? fail(error) : done()));
            server.closeAllConnections();
          }),
      });
    });
  });
}

/** On SIGINT or SIGTERM: stop listening, then close the given files (meter, snapshot) and exit. */
export function closeOnSignals(running: RunningServer, resources: ReadonlyArray<{ close(): unknown }>): void {
  const shutdown = () => {
    running.close().finally(() => {
      for (const resource of resources) resource.close();
      process.exit(0);
    });
  };
  process.once("SIGINT", shutdown);
  process.once("SIGTERM", shutdown);
}
