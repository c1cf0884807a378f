// The service's log: pino, one JSON object per line on stderr (stdout carries only the one ready
// line that scripts wait for, "cei serving ... on <url>"). Written asynchronously in 4 KiB batches
// (at least once a second) so that a slow reader of the log never blocks an answer and a line
// costs no write of its own; flushed before the process exits. On a terminal the
// lines are made human-readable by pino-pretty instead. docs/operations.md lists every field.
import { pino, type DestinationStream, type Logger } from "pino";
import pretty from "pino-pretty";

export type { Logger } from "pino";

export const logLevels = ["trace", "debug", "info", "warn", "error", "fatal", "silent"] as const;
export type LogLevel = (typeof logLevels)[number];

export function parseLogLevel(value: string): LogLevel {
  if (!(logLevels as readonly string[]).includes(value)) throw new Error(`--log-level must be one of ${logLevels.join(", ")}, got "${value}"`);
  return value as LogLevel;
}

export interface ServiceLog {
  logger: Logger;
  /** Writes out whatever is still buffered; call before the process exits. */
  flush(): void;
}

/** pid but no hostname (the collector knows the host), ISO times: the same for every destination. */
function _options(level: LogLevel) {
  return { level, base: { pid: process.pid }, timestamp: isoTimeOncePerMillisecond };
}

let lastMillisecond = Number.NaN;
let lastTime = "";
/**
 * pino's isoTime, formatted once per millisecond instead of once per line: under load a dozen lines
 * share each millisecond, and toISOString was ~0.7 µs of a ~2.5 µs line (issue 12).
 */
export function isoTimeOncePerMillisecond(): string {
  const now = Date.now();
  if (now !== lastMillisecond) {
    lastMillisecond = now;
    lastTime = `,"time":"${new Date(now).toISOString()}"`;
  }
  return lastTime;
}

/** For tests and embedders: every line written to `destination` (e.g. a stream the test parses). */
export function createLogger(level: LogLevel, destination: DestinationStream): Logger {
  return pino(_options(level), destination);
}

/** The default of createApp without a logger: unexpected errors only, on stderr. */
export function errorsOnStderr(): Logger {
  return pino({ ..._options("error") }, pino.destination(2));
}

/**
 * Lines are gathered up to LOG_BUFFER_BYTES and written by libuv's thread pool, at least every
 * LOG_FLUSH_MS: one write per line cost about 70-100 µs of CPU per request (docs/performance.md).
 */
const LOG_BUFFER_BYTES = 4096;
const LOG_FLUSH_MS = 1000;

/**
 * The lines gathered here and handed to pino's destination (sonic-boom) a batch at a time:
 * sonic-boom measures the byte length of all it holds on every write it is given, so buffering in
 * it alone cost ~2.9 µs a line at 4 KiB, more than pino's serialising (issue 12). sonic-boom still
 * does the writing (one write in flight, retries on EAGAIN): a full batch at once, the rest of the
 * lines every LOG_FLUSH_MS, and everything (what it has not begun writing) on flushSync.
 */
class LineBatches implements DestinationStream {
  readonly #destination: ReturnType<typeof pino.destination>;
  #pending = "";

  constructor(destination: ReturnType<typeof pino.destination>) {
    this.#destination = destination;
    setInterval(() => {
      this.#handOver();
      destination.flush();
    }, LOG_FLUSH_MS).unref();
  }

  write(line: string): void {
    this.#pending += line;
    // Characters, not bytes: a line is never fewer bytes than characters, and the bound is loose.
    if (this.#pending.length >= LOG_BUFFER_BYTES) this.#handOver();
  }

  /** Everything gathered and not yet being written, written before this returns (start-up, exit). */
  flushSync(): void {
    this.#handOver();
    this.#destination.flushSync();
  }

  #handOver(): void {
    if (this.#pending === "") return;
    this.#destination.write(this.#pending);
    this.#pending = "";
  }
}

/** A batch at least this long is written at once; shorter ones wait for a flush. */
export function asyncDestination(dest: number | string): LineBatches {
  return new LineBatches(pino.destination({ dest, sync: false, minLength: LOG_BUFFER_BYTES }));
}

/** The log of `cei serve` and `npm start`: JSON on stderr, or pino-pretty when stderr is a terminal. */
export function createServiceLog(level: LogLevel): ServiceLog {
  if (process.stderr.isTTY === true) {
    const stream = pretty({ destination: 2, sync: true, colorize: true, translateTime: "SYS:HH:MM:ss.l" });
    return { logger: pino(_options(level), stream), flush: () => undefined };
  }
  const destination = asyncDestination(2);
  return {
    logger: pino(_options(level), destination),
    flush: () => {
      try {
        destination.flushSync();
      } catch {
        // Nothing buffered yet (the destination is not open): nothing to write.
      }
    },
  };
}
