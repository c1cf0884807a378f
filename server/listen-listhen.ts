// The listener of `npm start` (and `cei serve --listener listhen`): listhen, which the design names,
// picks a free port when the asked one is taken and lists the URLs. Three of its defaults are
// turned off: autoClose (it calls process.exit on SIGINT, SIGTERM and SIGHUP, which would cut the
// requests in flight and take the snapshot-swap signal: closeOnSignals drains instead), public
// (it would bind every interface in production: 127.0.0.1 unless told) and showURL (we print
// them ourselves). listhen makes a plain node:http server, so the limits and the listener's own
// answers of listen.ts are installed on it afterwards (guardServer).
import type { Server, ServerResponse } from "node:http";
import type { H3 } from "h3";
import { listen } from "listhen";
import { bodyBlocksConnection, checkingIntervalMs, guardServer, resolveLimits, runningServer, type ListenOptions, type RequestListener, type RunningServer } from "./listen.ts";

export interface ListhenServer extends RunningServer {
  /** Every URL the server answers on (local, and each network address when bound to all). */
  urls: string[];
}

export async function startListhenServer(app: H3, options: ListenOptions = {}): Promise<ListhenServer> {
  const limits = resolveLimits(options);
  const state = { draining: false };
  let listener: RequestListener | undefined;
  const host = options.host ?? "127.0.0.1";
  const anyHost = host === "0.0.0.0" || host === "::";
  const listening = await listen((request, response) => listener!(request, _closingWhenNeeded(response, state)), {
    port: options.port ?? 0,
    hostname: host,
    public: anyHost,
    autoClose: false,
    showURL: false,
    qr: false,
    open: false,
    clipboard: false,
    isProd: false,
    isTest: true,
  });
  const server = listening.server as Server;
  listener = guardServer(server, app, limits, options);
  _checkConnectionsEvery(server, checkingIntervalMs(limits));
  const urls = (await listening.getURLs()).map((entry) => entry.url.replace(/\/$/, ""));
  const address = listening.address;
  const local = `http://${address.family === "IPv6" ? `[${address.address}]` : address.address}:${address.port}`;
  return { ...runningServer(local, server, limits, state), urls: urls.length > 0 ? urls : [local] };
}

/**
 * listen.ts gives its server a ServerResponse class that closes the connection after an answer
 * while draining or when a body was left unread; listhen's server has Node's class, so the same
 * check is put on each response.
 */
function _closingWhenNeeded(response: ServerResponse, state: { draining: boolean }): ServerResponse {
  const writeHead = response.writeHead;
  response.writeHead = function (this: ServerResponse, ...args: Parameters<ServerResponse["writeHead"]>) {
    if (state.draining || bodyBlocksConnection(this.req)) this.shouldKeepAlive = false;
    return writeHead.apply(this, args);
  } as ServerResponse["writeHead"];
  return response;
}

/**
 * Node checks requests against headersTimeout and requestTimeout on a timer whose period is fixed
 * when the server starts listening (30 s by default). listhen's server is already listening: Node
 * restarts that timer, with the period set here, whenever 'listening' is emitted.
 */
function _checkConnectionsEvery(server: Server, intervalMs: number): void {
  (server as Server & { connectionsCheckingInterval: number }).connectionsCheckingInterval = intervalMs;
  server.emit("listening");
}
