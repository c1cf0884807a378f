// Limits by the client's address, so that no one client holds the service alone: a cap on the
// connections one peer may hold open (beside the global cap), the client address behind a trusted
// reverse proxy, and a token bucket per client for the public reference paths.
import type { IncomingMessage, Server } from "node:http";
import { BlockList, isIP, type Socket } from "node:net";

/** Emitted on the server for every connection closed by the per-address cap (metrics count it). */
export const ADDRESS_DROP_EVENT = "dropPerAddress";

/** `::ffff:192.0.2.1` (an IPv4 client on a dual-stack socket) is the client 192.0.2.1. */
export function normalizeAddress(address: string): string {
  return address.startsWith("::ffff:") && isIP(address.slice(7)) === 4 ? address.slice(7) : address;
}

const connectionCounts = new WeakMap<Server, { live: number; held: number }>();

/** The connections a capped server serves (`live`) and holds unread before closing them (`held`). */
export function connectionsOf(server: Server): { live: number; held: number } {
  return { ...(connectionCounts.get(server) ?? { live: 0, held: 0 }) };
}

/** Sockets over their address's cap held unread, at most, before they are closed; and for how long. */
export const HELD_SOCKETS_MAX = 1_024;
const HOLD_MS = 1_000;

/**
 * The caps on open connections: `total` in all (the global cap) and `perAddress` per peer. It counts
 * the socket's peer, never a forwarded address: a header cannot be read before the connection is
 * accepted, and one a client writes cannot free it from the cap.
 *
 * A socket over its address's cap is held, unread, for a second before it is closed (while fewer
 * than HELD_SOCKETS_MAX are held; beyond that it is closed at once). A client that reopens every
 * socket it loses, as a slowloris does, would otherwise make the server accept and close tens of
 * thousands of sockets a second, and that work slowed every other client's slowest answers 3-10x;
 * held, its sockets come back at most once a second each. Held sockets are not counted in `total`
 * (node's own `maxConnections` is set to `total` plus the hold's bound, so that it still bounds
 * the file descriptors), and never reach node:http: only admitted sockets are passed on to the
 * server's own connection listeners.
 */
export function capConnections(server: Server, limits: { total: number; perAddress: number }): void {
  server.maxConnections = limits.total + HELD_SOCKETS_MAX;
  const open = new Map<string, number>();
  const counts = { live: 0, held: 0 };
  connectionCounts.set(server, counts);
  const downstream = server.listeners("connection") as Array<(socket: Socket) => void>;
  server.removeAllListeners("connection");
  server.on("connection", (socket: Socket) => {
    const peer = socket.remoteAddress;
    if (peer === undefined) {
      socket.destroy();
      return;
    }
    if (counts.live >= limits.total) {
      socket.destroy();
      server.emit("drop", { remoteAddress: peer });
      return;
    }
    const address = normalizeAddress(peer);
    const count = open.get(address) ?? 0;
    if (count >= limits.perAddress) {
      server.emit(ADDRESS_DROP_EVENT, address);
      if (counts.held >= HELD_SOCKETS_MAX) {
        socket.destroy();
        return;
      }
      counts.held += 1;
      socket.pause();
      socket.on("error", () => undefined);
      socket.once("close", () => void (counts.held -= 1));
      setTimeout(() => socket.destroy(), HOLD_MS).unref();
      return;
    }
    counts.live += 1;
    open.set(address, count + 1);
    socket.once("close", () => {
      counts.live -= 1;
      const left = open.get(address)! - 1;
      if (left === 0) open.delete(address);
      else open.set(address, left);
    });
    for (const listener of downstream) listener.call(server, socket);
  });
}

/** `--trust-proxy` values: addresses or CIDR ranges (`10.0.0.0/8`, `fd00::/8`), commas allowed. */
export function parseTrustedProxies(values: readonly string[]): { list: BlockList; entries: string[] } {
  const list = new BlockList();
  const entries = values.flatMap((value) => value.split(",")).map((entry) => entry.trim()).filter((entry) => entry !== "");
  for (const entry of entries) {
    const [address, prefix, extra] = entry.split("/");
    const family = isIP(address!);
    const bits = family === 4 ? 32 : 128;
    if (family === 0 || extra !== undefined || (prefix !== undefined && !(/^[0-9]{1,3}$/.test(prefix) && Number(prefix) <= bits))) {
      throw new Error(`--trust-proxy must be an IP address or a CIDR range such as 10.0.0.0/8, got "${entry}"`);
    }
    const type = family === 4 ? "ipv4" : "ipv6";
    if (prefix === undefined) list.addAddress(normalizeAddress(address!), type);
    else list.addSubnet(address!, Number(prefix), type);
  }
  return { list, entries };
}

function _trusted(list: BlockList, address: string): boolean {
  const family = isIP(address);
  return family !== 0 && list.check(address, family === 4 ? "ipv4" : "ipv6");
}

/**
 * The client's address. When the peer is a trusted proxy, X-Forwarded-For is read from its end:
 * each proxy appends the address it received the request from, so the last hop that is not a
 * trusted proxy is the client; anything to its left was written by that client and is not believed.
 * A peer that is not trusted is the client, whatever the header says.
 */
export function clientAddress(request: IncomingMessage, trusted: BlockList | undefined): string {
  const peer = normalizeAddress(request.socket.remoteAddress ?? "");
  if (trusted === undefined || !_trusted(trusted, peer)) return peer;
  const header = request.headers["x-forwarded-for"];
  if (header === undefined) return peer;
  const hops = (Array.isArray(header) ? header.join(",") : header).split(",").map((hop) => hop.trim());
  let client = peer;
  for (let i = hops.length - 1; i >= 0; i--) {
    const hop = normalizeAddress(hops[i]!);
    // A hop that is not an address cannot be followed further: the last good one is the client.
    if (isIP(hop) === 0) break;
    client = hop;
    if (!_trusted(trusted, hop)) break;
  }
  return client;
}

const clients = new WeakMap<object, string>();

/** Keeps the client address found behind a trusted proxy, for the request log; returns it. */
export function rememberClient(request: IncomingMessage, address: string): string {
  clients.set(request, address);
  return address;
}

/** The request's client: the one remembered behind a trusted proxy, else the socket's peer. */
export function requestClient(request: { readonly socket: { readonly remoteAddress?: string | undefined } }): string | undefined {
  const peer = request.socket.remoteAddress;
  return clients.get(request) ?? (peer === undefined ? undefined : normalizeAddress(peer));
}

export interface BucketShape {
  /** Requests a client may make at once. */
  burst: number;
  /** Requests per second added back, up to `burst`. */
  perSecond: number;
  /** How long a 429 is held before it is sent (listen.ts). */
  refusalDelayMs?: number;
}

/** Buckets kept at most; past it, the ones that have refilled (their clients went quiet) are dropped. */
const MAX_BUCKETS = 10_000;

/** A token bucket per client address. */
export class AddressBuckets {
  readonly #shape: BucketShape;
  readonly #buckets = new Map<string, { tokens: number; at: number }>();
  readonly #now: () => number;

  constructor(shape: BucketShape, now: () => number = performance.now.bind(performance)) {
    this.#shape = shape;
    this.#now = now;
  }

  /** Takes a token; when there is none, the whole seconds until one is back (at least 1). */
  take(address: string): { ok: true } | { ok: false; retryAfterS: number } {
    const now = this.#now();
    let bucket = this.#buckets.get(address);
    if (bucket === undefined) {
      if (this.#buckets.size >= MAX_BUCKETS) this.#sweep(now);
      bucket = { tokens: this.#shape.burst, at: now };
      this.#buckets.set(address, bucket);
    } else {
      bucket.tokens = Math.min(this.#shape.burst, bucket.tokens + ((now - bucket.at) / 1000) * this.#shape.perSecond);
      bucket.at = now;
    }
    if (bucket.tokens >= 1) {
      bucket.tokens -= 1;
      return { ok: true };
    }
    return { ok: false, retryAfterS: Math.max(1, Math.ceil((1 - bucket.tokens) / this.#shape.perSecond)) };
  }

  #sweep(now: number): void {
    const fullAfterMs = (this.#shape.burst / this.#shape.perSecond) * 1000;
    for (const [address, bucket] of this.#buckets) if (now - bucket.at >= fullAfterMs) this.#buckets.delete(address);
    // Still full of active clients: forget the oldest, which at worst gives one of them a fresh burst.
    if (this.#buckets.size >= MAX_BUCKETS) this.#buckets.delete(this.#buckets.keys().next().value!);
  }
}
