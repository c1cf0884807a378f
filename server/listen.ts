// The listener: node:http with h3's toNodeHandler (the same listener the benchmark's h3 baseline
// uses). h3's `serve` (srvx) was the alternative; node:http was kept because it gives direct access
// to 'clientError', 'checkExpectation' and the connection limits, so that every answer the HTTP
// layer gives by itself is the JSON envelope, and slow or greedy clients are bounded.
import { createServer, ServerResponse, type IncomingMessage, type Server } from "node:http";
import { Server as NetServer, type BlockList, type Socket } from "node:net";
import { toNodeHandler, type H3 } from "h3";
import { MAX_DRAINED_BODY_BYTES } from "./_body.ts";
import type { ErrorDetail } from "./errors.ts";
import {
  AddressBuckets, capConnections, clientAddress, normalizeAddress, rememberClient, requestClient, type BucketShape,
} from "./address-limits.ts";
import { answerFromListener, answerOnSocket, answerRateLimited, listenerProblems } from "./_listener-answers.ts";
import { listenDefaults, publicBucketDefault, type ListenLimits } from "./listen-limits.ts";
import type { ServiceLog } from "./log.ts";
import { isReferencePath } from "./public/paths.ts";

export interface ListenOptions extends Partial<ListenLimits> {
  port?: number;
  host?: string;
  /** The content hash of the snapshot being served, for `x-service-snapshot` on the listener's own answers. */
  snapshot?: () => string | undefined;
  /** Told of every answer the listener gives by itself (reason: the detail's code), for the log and metrics. */
  onListenerAnswer?: (reason: string, requestId: string, status: number, client: string | undefined) => void;
  /** Peers whose X-Forwarded-For names the client (`--trust-proxy`, parseTrustedProxies). */
  trustProxy?: BlockList;
  /** The per-client bucket of the public reference paths (default: publicBucketDefault). */
  publicBucket?: BucketShape;
}

/** The paths whose answers are large and keyless (the reference page, the document, llms.txt): limited per client. */
export function isPublicAssetPath(url: string): boolean {
  const end = url.indexOf("?");
  return isReferencePath(end === -1 ? url : url.slice(0, end));
}

export interface RunningServer {
  url: string;
  server: Server;
  limits: ListenLimits;
  /** Closes at once, every connection included (tests). */
  close(): Promise<void>;
  /**
   * Stops accepting, answers what is in flight (with `Connection: close`), closes idle
   * connections; true when every connection ended within `timeoutMs` (default: the
   * shutdownTimeoutMs limit), false when they were cut.
   */
  shutdown(timeoutMs?: number): Promise<boolean>;
}

/** How often Node looks for requests over their time limits: a fraction of the shortest one. */
export function checkingIntervalMs(limits: ListenLimits): number {
  return Math.max(10, Math.min(1_000, Math.floor(Math.min(limits.headersTimeoutMs, limits.requestTimeoutMs) / 4)));
}

/**
 * A body that the app answered without reading to its end cannot be skipped cheaply when it is
 * chunked, too large, or was partly read and abandoned: the connection closes after the answer.
 * A small declared body left unread is discarded by Node itself, and the connection stays open.
 */
export function bodyBlocksConnection(request: IncomingMessage): boolean {
  if (request.complete) return false;
  if (request.readableDidRead || request.destroyed) return true;
  const declared = request.headers["content-length"];
  // Neither header: no body (an answer given before Node marked such a request complete, as the 429
  // of the public paths is, keeps the connection).
  if (declared === undefined) return request.headers["transfer-encoding"] !== undefined;
  return !(Number(declared) <= MAX_DRAINED_BODY_BYTES);
}

function _responseClass(state: { draining: boolean }) {
  return class ApiServerResponse extends ServerResponse {
    // Node's implicit headers go through writeHead too, so this sees every response.
    override writeHead(statusCode: number, ...rest: unknown[]): this {
      if (state.draining || bodyBlocksConnection(this.req)) this.shouldKeepAlive = false;
      return (ServerResponse.prototype.writeHead as (code: number, ...more: unknown[]) => this).call(this, statusCode, ...rest);
    }
  };
}

/** A response of this socket's request has started (Node's own 'clientError' default checks the same). */
function _responseStarted(socket: Socket): boolean {
  const inFlight = (socket as Socket & { _httpMessage?: ServerResponse | null })._httpMessage;
  return inFlight !== undefined && inFlight !== null;
}

/** Requests Node rejects before the app sees them still get the JSON envelope, when one can be sent. */
/** The reason and request id of the answer, or undefined when the socket was closed without one. */
function _answerClientError(error: NodeJS.ErrnoException, socket: Socket, snapshot: string | undefined): [string, string] | undefined {
  // A timed-out request already in the app, a client that never sent a byte, or one that is gone:
  // nothing can be answered that the client would read as the answer to its request.
  if (!socket.writable || _responseStarted(socket) || socket.bytesRead === 0) {
    socket.destroy();
    return undefined;
  }
  const problem =
    error.code === "HPE_HEADER_OVERFLOW" ? listenerProblems.headersTooLarge
    : error.code === "ERR_HTTP_REQUEST_TIMEOUT" ? listenerProblems.requestTimeout
    : listenerProblems.malformedRequest;
  return [problem.code, answerOnSocket(socket, problem, snapshot)];
}

/** The limits asked for, each defaulted (listen-limits.ts). */
export function resolveLimits(options: Partial<ListenLimits>): ListenLimits {
  return {
    headersTimeoutMs: options.headersTimeoutMs ?? listenDefaults.headersTimeoutMs,
    requestTimeoutMs: options.requestTimeoutMs ?? listenDefaults.requestTimeoutMs,
    keepAliveTimeoutMs: options.keepAliveTimeoutMs ?? listenDefaults.keepAliveTimeoutMs,
    maxConnections: options.maxConnections ?? listenDefaults.maxConnections,
    maxConnectionsPerAddress: options.maxConnectionsPerAddress ?? listenDefaults.maxConnectionsPerAddress,
    shutdownTimeoutMs: options.shutdownTimeoutMs ?? listenDefaults.shutdownTimeoutMs,
  };
}

export type RequestListener = (request: IncomingMessage, response: ServerResponse) => void;

/**
 * The app as a node:http request listener, and the listener's own answers (missing Host, unmet
 * Expect, unparsable or late requests) installed on `server` with its limits. For a server made
 * elsewhere (listhen), the limits fixed at creation are set as properties instead.
 */
export function guardServer(server: Server, app: H3, limits: ListenLimits, options: ListenOptions): RequestListener {
  const snapshot = options.snapshot ?? (() => undefined);
  const told = options.onListenerAnswer ?? (() => undefined);
  const answer = (response: ServerResponse, problem: ErrorDetail) =>
    told(problem.code, answerFromListener(response, problem, snapshot()), 422, requestClient(response.req));
  const handle = toNodeHandler(app) as unknown as RequestListener;
  const trusted = options.trustProxy;
  const buckets = new AddressBuckets(options.publicBucket ?? publicBucketDefault);
  const refusalDelayMs = options.publicBucket?.refusalDelayMs ?? publicBucketDefault.refusalDelayMs;
  applyConnectionLimits(server, limits);
  // Checked below, so that the answer is the JSON envelope rather than Node's bare 400.
  (server as Server & { requireHostHeader: boolean }).requireHostHeader = false;
  server.on("clientError", (error: NodeJS.ErrnoException, socket: Socket) => {
    const answered = _answerClientError(error, socket, snapshot());
    if (answered !== undefined) told(answered[0], answered[1], 422, socket.remoteAddress === undefined ? undefined : normalizeAddress(socket.remoteAddress));
  });
  server.on("checkExpectation", (_request, response) => answer(response, listenerProblems.unsupportedExpectation));
  return (request, response) => {
    // Without a trusted proxy the client is the peer, which the log reads from the socket itself.
    const client = trusted === undefined ? undefined : rememberClient(request, clientAddress(request, trusted));
    if (request.headers.host === undefined && request.httpVersion === "1.1") {
      answer(response, listenerProblems.missingHost);
      return;
    }
    if (isPublicAssetPath(request.url ?? "")) {
      const taken = buckets.take(client ?? clientAddress(request, undefined));
      if (!taken.ok) {
        // Held a moment before it is sent: a client that does not wait for Retry-After then gets
        // one answer per connection per delay, and the server's CPU stays with the other clients
        // (answered at once, a flood of 429s doubled another client's p50).
        setTimeout(() => {
          if (response.destroyed || response.writableEnded) return;
          told("public_rate_limited", answerRateLimited(response, taken.retryAfterS, snapshot()), 429, requestClient(request));
        }, refusalDelayMs);
        return;
      }
    }
    handle(request, response);
  };
}

/**
 * The limits on connections and time that node:http reads from the server, and the cap per peer
 * address. Node's headersTimeout also closes a connection that sent nothing at all (it is timed
 * from the connection's start), so the header deadline bounds silent and half-sent requests alike.
 */
export function applyConnectionLimits(server: Server, limits: ListenLimits): void {
  server.headersTimeout = limits.headersTimeoutMs;
  server.requestTimeout = limits.requestTimeoutMs;
  server.keepAliveTimeout = limits.keepAliveTimeoutMs;
  capConnections(server, { total: limits.maxConnections, perAddress: limits.maxConnectionsPerAddress });
}

export function startServer(app: H3, options: ListenOptions = {}): Promise<RunningServer> {
  const limits = resolveLimits(options);
  const state = { draining: false };
  let listener: RequestListener | undefined;
  const server = createServer(
    {
      connectionsCheckingInterval: checkingIntervalMs(limits),
      requireHostHeader: false,
      ServerResponse: _responseClass(state),
    },
    (request, response) => listener!(request, response),
  );
  listener = guardServer(server, app, limits, options);

  return new Promise((resolve, reject) => {
    server.once("error", reject);
    server.listen(options.port ?? 0, options.host ?? "127.0.0.1", () => {
      server.off("error", reject);
      const address = server.address();
      if (address === null || typeof address === "string") return reject(new Error("server has no TCP address"));
      const host = address.family === "IPv6" ? `[${address.address}]` : address.address;
      resolve(runningServer(`http://${host}:${address.port}`, server, limits, state));
    });
  });
}

/** Closing and draining, for a server that listens. */
export function runningServer(url: string, server: Server, limits: ListenLimits, state: { draining: boolean }): RunningServer {
  return {
    url,
    server,
    limits,
    close: () =>
      new Promise<void>((done, fail) => {
        // After shutdown() the server no longer listens: nothing is left to wait for.
        if (server.listening) server.close((error) => (error ? fail(error) : done()));
        else done();
        server.closeAllConnections();
      }),
    shutdown: (timeoutMs = limits.shutdownTimeoutMs) => _drain(server, state, timeoutMs),
  };
}

/** How often a draining server closes connections that have become idle. */
const IDLE_SWEEP_MS = 50;

function _drain(server: Server, state: { draining: boolean }, timeoutMs: number): Promise<boolean> {
  state.draining = true;
  return new Promise((resolve) => {
    // net's close, not http's: since Node 19 http's close() also destroys idle keep-alive
    // connections at once, and a request already on the wire to one of them would be lost. The
    // first sweep runs after the event loop has read what had arrived when the signal came.
    NetServer.prototype.close.call(server, () => finish(true));
    const sweep = setInterval(() => server.closeIdleConnections(), IDLE_SWEEP_MS);
    const deadline = setTimeout(() => {
      server.closeAllConnections();
      finish(false);
    }, timeoutMs);
    function finish(graceful: boolean): void {
      clearInterval(sweep);
      clearTimeout(deadline);
      resolve(graceful);
    }
  });
}

/** The log's last lines get what is left of the shutdown timeout, within these bounds. */
const LOG_CLOSE_MIN_MS = 100;
const LOG_CLOSE_MAX_MS = 1_000;
/** Beyond the shutdown timeout and the log's wait, a close that hangs (a meter's connections) is not waited for. */
const CLOSE_GRACE_MS = 2_000;

/**
 * On SIGINT or SIGTERM: drain (see RunningServer.shutdown), close the given files (meter,
 * snapshot), flush the log, exit 0; exit 1 when the drain had to cut connections or a file failed
 * to close. A second signal ends the process at once (Node's default for it). Returns the same stop
 * for a failure found later (a damaged snapshot), which exits 1. A log that nobody reads is waited
 * for only what is left of the shutdown timeout (0.1-1 s): the exit never depends on its reader.
 */
export function closeOnSignals(running: RunningServer, resources: ReadonlyArray<{ close(): unknown }>, log: ServiceLog): () => void {
  const timeoutMs = running.limits.shutdownTimeoutMs;
  const { logger } = log;
  let stopping = false;
  /** `signal` undefined: stopping because of a failure (logged by the caller), exit code 1. */
  const stop = (signal: NodeJS.Signals | undefined) => {
    if (stopping) return;
    stopping = true;
    process.off("SIGINT", stop);
    process.off("SIGTERM", stop);
    logger.info({ event: "shutdown", signal, timeout_ms: timeoutMs }, `cei: ${signal ?? "stopping"}: finishing the requests in flight (at most ${timeoutMs} ms)`);
    const deadline = Date.now() + timeoutMs;
    const exit = (code: number) => {
      // A write blocked on a reader that stopped reading (another process sharing stderr made it
      // blocking) holds one of libuv's threads, and process.exit waits for them all: the process
      // ends by the signal instead, as Node's default for it would.
      if (log.writeStuck()) process.kill(process.pid, signal ?? "SIGTERM");
      process.exit(code);
    };
    setTimeout(() => exit(1), timeoutMs + LOG_CLOSE_MAX_MS + CLOSE_GRACE_MS).unref();
    void running.shutdown().then(async (graceful) => {
      let closed = true;
      for (const resource of resources) {
        try {
          await resource.close();
        } catch (error) {
          closed = false;
          logger.error({ event: "close_failed", err: error }, `cei: closing failed: ${error instanceof Error ? error.message : String(error)}`);
        }
      }
      if (!graceful) logger.warn({ event: "stopped", graceful }, `cei: requests still in flight after ${timeoutMs} ms were cut off`);
      else logger.info({ event: "stopped", graceful }, "cei: stopped");
      await log.close(Math.min(LOG_CLOSE_MAX_MS, Math.max(LOG_CLOSE_MIN_MS, deadline - Date.now())));
      exit(signal !== undefined && graceful && closed ? 0 : 1);
    });
  };
  process.on("SIGINT", stop);
  process.on("SIGTERM", stop);
  return () => stop(undefined);
}
