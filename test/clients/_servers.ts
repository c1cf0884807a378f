// What the client tests run against: the real server on an ephemeral port with a clock the test
// can hold still or let run (a 429's Retry-After must really pass), a front that resets the first
// connections it accepts and forwards the rest to the server, and a server that never answers.
import { createServer, type Server, type Socket, connect } from "node:net";
import type { RunningServer } from "../../server/listen.ts";
import { createTestService, startTestServer, type TestService } from "../_support/server.ts";

export interface ClientTestServer {
  service: TestService;
  server: RunningServer;
  url: string;
  /** Holds the service's clock at `at` (ms since the epoch) until `run()`. */
  freeze(at: number): void;
  /** From now on the service's clock moves with real time, from where it was held. */
  run(): void;
  close(): Promise<void>;
}

export async function startClientTestServer(): Promise<ClientTestServer> {
  const service = await createTestService();
  const server = await startTestServer(service.app, service.serving);
  let base = service.clock.now;
  let runningSince: number | undefined;
  // The app and the meter read `clock.now` on every request.
  Object.defineProperty(service.clock, "now", {
    configurable: true,
    get: () => (runningSince === undefined ? base : base + (performance.now() - runningSince)),
    set: (at: number) => {
      base = at;
      runningSince = undefined;
    },
  });
  return {
    service, server, url: server.url,
    freeze(at) {
      base = at;
      runningSince = undefined;
    },
    run() {
      runningSince = performance.now();
    },
    async close() {
      await server.close();
      service.close();
    },
  };
}

/** Uses up a key's window: `count` requests, answered in process. */
export async function spendWindow(service: TestService, key: string, count: number): Promise<void> {
  for (let i = 0; i < count; i++) await (await service.app.request("/v1/key", { headers: { authorization: `Bearer ${key}` } })).text();
}

interface Front { url: string; accepted: () => number; close(): Promise<void> }

function _listen(server: Server, sockets: Set<Socket>): Promise<string> {
  server.on("connection", (socket) => {
    sockets.add(socket);
    socket.once("close", () => sockets.delete(socket));
  });
  return new Promise((resolve) => server.listen(0, "127.0.0.1", () => {
    const address = server.address() as { port: number };
    resolve(`http://127.0.0.1:${address.port}`);
  }));
}

function _closer(server: Server, sockets: Set<Socket>): () => Promise<void> {
  return () => {
    for (const socket of sockets) socket.destroy();
    return new Promise((resolve) => server.close(() => resolve()));
  };
}

/** Resets the first `resets` connections as soon as they are accepted; forwards the others to `target`. */
export async function resettingFront(target: string, resets: number): Promise<Front> {
  const { hostname, port } = new URL(target);
  const sockets = new Set<Socket>();
  let accepted = 0;
  const server = createServer((socket) => {
    accepted++;
    if (accepted <= resets) {
      socket.resetAndDestroy();
      return;
    }
    const upstream = connect(Number(port), hostname);
    sockets.add(upstream);
    upstream.once("close", () => sockets.delete(upstream));
    socket.pipe(upstream).pipe(socket);
    socket.on("error", () => upstream.destroy());
    upstream.on("error", () => socket.destroy());
  });
  const url = await _listen(server, sockets);
  return { url, accepted: () => accepted, close: _closer(server, sockets) };
}

/** Accepts connections and never answers. */
export async function silentServer(): Promise<Front> {
  const sockets = new Set<Socket>();
  let accepted = 0;
  const server = createServer((socket) => {
    accepted++;
    socket.on("error", () => undefined);
  });
  const url = await _listen(server, sockets);
  return { url, accepted: () => accepted, close: _closer(server, sockets) };
}
