// The listener's limits on connections and time, with their defaults and their parsing from
// `cei serve` options. docs/operations.md states each one; startServer (listen.ts) applies them.

/** Limits on connections and time; every one is a `cei serve` option (docs/operations.md). */
export interface ListenLimits {
  /** From a request's first byte until its headers are complete. */
  headersTimeoutMs: number;
  /** From a request's first byte until its body is complete. */
  requestTimeoutMs: number;
  /** How long an idle keep-alive connection is kept open after a response. */
  keepAliveTimeoutMs: number;
  /** Connections beyond this are closed as soon as they are accepted. */
  maxConnections: number;
  /** Connections from one peer address beyond this are closed as soon as they are accepted. */
  maxConnectionsPerAddress: number;
  /** How long a graceful shutdown waits for requests in flight before it closes every connection. */
  shutdownTimeoutMs: number;
}

/**
 * The per-client bucket of /docs and /openapi.json: a page load is four requests (the page, its two
 * scripts, the document), so a burst covers several loads, and the refill a reader's pace; a flood
 * gets 429s, each held a second before it is sent.
 */
export const publicBucketDefault = { burst: 30, perSecond: 2, refusalDelayMs: 1_000 } as const;

export const listenDefaults: ListenLimits = {
  headersTimeoutMs: 10_000,
  requestTimeoutMs: 30_000,
  keepAliveTimeoutMs: 5_000,
  maxConnections: 1_000,
  maxConnectionsPerAddress: 64,
  shutdownTimeoutMs: 10_000,
};

/** The limits as `cei serve` takes them: whole numbers, milliseconds except the connection count. */
export interface ListenLimitOptions {
  headersTimeout?: string;
  requestTimeout?: string;
  keepAliveTimeout?: string;
  maxConnections?: string;
  maxConnectionsPerAddress?: string;
  shutdownTimeout?: string;
}

export function parseListenLimits(options: ListenLimitOptions): ListenLimits {
  const read = (flag: string, value: string | undefined, fallback: number): number => {
    if (value === undefined) return fallback;
    if (!/^[0-9]{1,9}$/.test(value) || Number(value) < 1) throw new Error(`--${flag} must be a whole number of at least 1, got "${value}"`);
    return Number(value);
  };
  const limits: ListenLimits = {
    headersTimeoutMs: read("headers-timeout", options.headersTimeout, listenDefaults.headersTimeoutMs),
    requestTimeoutMs: read("request-timeout", options.requestTimeout, listenDefaults.requestTimeoutMs),
    keepAliveTimeoutMs: read("keep-alive-timeout", options.keepAliveTimeout, listenDefaults.keepAliveTimeoutMs),
    maxConnections: read("max-connections", options.maxConnections, listenDefaults.maxConnections),
    maxConnectionsPerAddress: read("max-connections-per-address", options.maxConnectionsPerAddress, listenDefaults.maxConnectionsPerAddress),
    shutdownTimeoutMs: read("shutdown-timeout", options.shutdownTimeout, listenDefaults.shutdownTimeoutMs),
  };
  if (limits.headersTimeoutMs > limits.requestTimeoutMs) {
    throw new Error(`--headers-timeout (${limits.headersTimeoutMs}) must not exceed --request-timeout (${limits.requestTimeoutMs})`);
  }
  return limits;
}
