// The service's log: pino, one JSON object per line on stderr (stdout carries only the one ready
// line that scripts wait for, "cei serving ... on <url>"). Written asynchronously in 4 KiB batches
// (at least once a second) so that a slow reader of the log never blocks an answer and a line
// costs no write of its own; bounded, so that a reader that stalls costs lines (counted), never
// memory or the exit (_log-sink.ts); a storm of one error logged once per interval with a count
// (_log-storms.ts). On a terminal the lines are made human-readable by pino-pretty instead.
// docs/operations.md lists every field.
import { pino, type DestinationStream, type Logger } from "pino";
import pretty from "pino-pretty";
import { LineBatches } from "./_log-sink.ts";
import { repeatLimiter, type RepeatLimiter } from "./log-storms.ts";

export type { Logger } from "pino";

export const logLevels = ["trace", "debug", "info", "warn", "error", "fatal", "silent"] as const;
export type LogLevel = (typeof logLevels)[number];

export function parseLogLevel(value: string): LogLevel {
  if (!(logLevels as readonly string[]).includes(value)) throw new Error(`--log-level must be one of ${logLevels.join(", ")}, got "${value}"`);
  return value as LogLevel;
}

export interface ServiceLog {
  logger: Logger;
  /** Lines a stalled or vanished reader did not take (cei_log_lines_dropped_total). */
  droppedLines(): number;
  /** Resolves once every line so far is written, or after `waitMs` (default 1 s) for a reader that does not read. */
  flush(waitMs?: number): Promise<void>;
  /** Pending repeat summaries and the last lines written within `waitMs`, then the log closed: call before exit. */
  close(waitMs?: number): Promise<void>;
  /** A write is blocked in the kernel on a reader that does not read: process.exit would wait for it for ever. */
  writeStuck(): boolean;
}

/** pid but no hostname (the collector knows the host), ISO times: the same for every destination. */
function _options(level: LogLevel) {
  return { level, base: { pid: process.pid }, timestamp: isoTimeOncePerMillisecond };
}

let lastMillisecond = Number.NaN;
let lastTime = "";
/**
 * pino's isoTime, formatted once per millisecond instead of once per line: under load a dozen lines
 * share each millisecond, and toISOString was ~0.7 µs of a ~2.5 µs line.
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
export function createLogger(level: LogLevel, destination: DestinationStream, repeats: RepeatLimiter = repeatLimiter()): Logger {
  return pino({ ..._options(level), hooks: { logMethod: repeats.logMethod } }, destination);
}

/** The default of createApp without a logger: unexpected errors only, on stderr. */
export function errorsOnStderr(): Logger {
  return createLogger("error", pino.destination(2));
}

/** A batching destination that drops (and counts) what a stalled reader does not take (_log-sink.ts). */
export function asyncDestination(dest: number | string): LineBatches {
  return new LineBatches(dest);
}

/** The log of `cei serve` and `npm start`: JSON on stderr, or pino-pretty when stderr is a terminal. */
export function createServiceLog(level: LogLevel): ServiceLog {
  const repeats = repeatLimiter();
  // Reading process.stderr creates it: for a pipe or a socket, libuv then puts the descriptor in
  // non-blocking mode, so that a reader that stalls makes a write fail with EAGAIN (retried, with
  // the buffer bounded) instead of blocking one of libuv's threads for ever, which would also hang
  // process.exit (Node joins those threads at exit). A reader that went away must not end the
  // process either: a stray write to process.stderr is then lost, not thrown.
  const stderr = process.stderr;
  stderr.on("error", () => undefined);
  if (stderr.isTTY === true) {
    const stream = pretty({ destination: 2, sync: true, colorize: true, translateTime: "SYS:HH:MM:ss.l" });
    const done = () => {
      repeats.flush();
      return Promise.resolve();
    };
    return { logger: createLogger(level, stream, repeats), droppedLines: () => 0, flush: () => Promise.resolve(), close: done, writeStuck: () => false };
  }
  const handle = (stderr as unknown as { _handle?: { setBlocking?(blocking: boolean): number } })._handle;
  const destination = new LineBatches(2, { keepNonBlocking: () => void handle?.setBlocking?.(false) });
  return {
    logger: createLogger(level, destination, repeats),
    droppedLines: () => destination.droppedLines,
    flush: (waitMs) => destination.flush(waitMs),
    close: (waitMs) => {
      repeats.flush();
      return destination.close(waitMs);
    },
    writeStuck: () => destination.writeStuck,
  };
}
