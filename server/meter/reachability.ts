// Whether a meter can be reached now, for readiness (decision 40), at a bounded cost: a load
// balancer asks every reader every second or so, and must never add a query per probe. The meter's
// own traffic tells: every batch that commits confirms it, every one that fails for want of the
// meter refutes it. Only when nothing has said anything for PROBE_INTERVAL_MS does a probe run,
// one at a time, shared by every question asked meanwhile: at most one probe per interval however
// often readiness is asked.
/** How long what the meter's traffic last showed stands before readiness asks again. */
export const PROBE_INTERVAL_MS = 1_000;
/** How long a question waits for a probe before it answers with what was last known. */
const PROBE_WAIT_MS = 500;

export class Reachability {
  readonly #probe: () => Promise<void>;
  readonly #probeWhileReachable: boolean;
  readonly #clock: () => number;
  #reachable = true;
  #seenAt = Number.NEGATIVE_INFINITY;
  #probing: Promise<void> | undefined;

  /**
   * `probe` resolves when the meter answers and rejects when it cannot be reached.
   * `probeWhileReachable`: false for a meter that can only become unreachable by failing a request
   * of its own (a local file), so that an idle one is never probed.
   */
  constructor(probe: () => Promise<void>, options: { probeWhileReachable: boolean; clock?: () => number }) {
    this.#probe = probe;
    this.#probeWhileReachable = options.probeWhileReachable;
    this.#clock = options.clock ?? performance.now.bind(performance);
  }

  /** The meter answered (a batch committed). */
  succeeded(): void {
    this.#reachable = true;
    this.#seenAt = this.#clock();
  }

  /** The meter could not be reached or stayed locked (a batch failed for it). */
  failed(): void {
    this.#reachable = false;
    this.#seenAt = this.#clock();
  }

  /** Whether the meter can be reached, as last seen; probed first when that is too old. */
  async reachable(): Promise<boolean> {
    const fresh = this.#clock() - this.#seenAt < PROBE_INTERVAL_MS;
    if (fresh || (this.#reachable && !this.#probeWhileReachable)) return this.#reachable;
    this.#probing ??= this.#probe().then(
      () => this.succeeded(),
      () => this.failed(),
    ).finally(() => {
      this.#probing = undefined;
    });
    let timer: NodeJS.Timeout | undefined;
    await Promise.race([this.#probing, new Promise<void>((resolve) => (timer = setTimeout(resolve, PROBE_WAIT_MS)))]);
    clearTimeout(timer);
    return this.#reachable;
  }
}

/**
 * Errors that mean the meter itself could not be reached (no connection, a connection lost or
 * refused, a server shutting down), as opposed to one statement failing: node's socket errors,
 * PostgreSQL's connection classes (08: connection exception; 57P01-57P03: shutting down, crash
 * recovery, cannot connect now) and pg's own messages for a lost or timed-out connection.
 */
export function isUnreachable(error: unknown): boolean {
  const code = (error as { code?: unknown } | null)?.code;
  if (typeof code === "string") {
    if (code.startsWith("08") || code === "57P01" || code === "57P02" || code === "57P03") return true;
    if (/^E(CONNREFUSED|CONNRESET|HOSTUNREACH|NETUNREACH|TIMEDOUT|PIPE|AI_AGAIN)$|^ENOTFOUND$/.test(code)) return true;
  }
  const message = error instanceof Error ? error.message : "";
  return /Connection terminated|timeout exceeded when trying to connect|Client has encountered a connection error/.test(message);
}
