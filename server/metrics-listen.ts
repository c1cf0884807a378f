// The metrics listener: GET /metrics in the Prometheus text format, on its own port and by default
// only on 127.0.0.1, so that the public port never reveals request rates, keys' activity or the
// process. Nothing else is answered (404), and it takes no key: bind it where only the scraper reaches.
// It keeps the public listener's limits on connections and time, so that a port reached by more
// than the scraper cannot be held open by silent or half-sent requests.
import { createServer, type Server } from "node:http";
import { applyConnectionLimits, checkingIntervalMs, resolveLimits } from "./listen.ts";
import type { ListenLimits } from "./listen-limits.ts";
import type { Metrics } from "./metrics.ts";

export interface MetricsListener {
  url: string;
  server: Server;
  close(): Promise<void>;
}

export function startMetricsServer(metrics: Metrics, options: { port?: number; host?: string } & Partial<ListenLimits> = {}): Promise<MetricsListener> {
  const limits = resolveLimits(options);
  const server = createServer({ connectionsCheckingInterval: checkingIntervalMs(limits) }, (request, response) => {
    const path = (request.url ?? "").split("?")[0];
    if (path !== "/metrics" || (request.method !== "GET" && request.method !== "HEAD")) {
      response.writeHead(404, { "content-type": "text/plain; charset=utf-8" }).end("not found: the metrics are at GET /metrics\n");
      return;
    }
    metrics.registry.metrics().then(
      (text) => response.writeHead(200, { "content-type": metrics.registry.contentType, "cache-control": "no-store" }).end(request.method === "HEAD" ? undefined : text),
      (error: unknown) => response.writeHead(500, { "content-type": "text/plain; charset=utf-8" }).end(`collecting the metrics failed: ${String(error)}\n`),
    );
  });
  applyConnectionLimits(server, limits);
  return new Promise((resolve, reject) => {
    server.once("error", reject);
    server.listen(options.port ?? 0, options.host ?? "127.0.0.1", () => {
      server.off("error", reject);
      const address = server.address();
      if (address === null || typeof address === "string") return reject(new Error("metrics server has no TCP address"));
      const host = address.family === "IPv6" ? `[${address.address}]` : address.address;
      resolve({
        url: `http://${host}:${address.port}`,
        server,
        close: () =>
          new Promise<void>((done, fail) => {
            if (server.listening) server.close((error) => (error ? fail(error) : done()));
            else done();
            server.closeAllConnections();
          }),
      });
    });
  });
}
