// What becomes of each answered request: one log line and the metrics. The trace is filled in by
// the pipeline as it runs, from values it holds anyway (the key it found, the error it answers,
// the cost it charged), so observing reads no header and parses no body.
import type { ErrorCode } from "./errors.ts";
import type { Logger } from "./log.ts";
import type { Metrics } from "./metrics.ts";
import { CLIENT_CLOSED, newRequestId } from "./_respond.ts";
import type { RequestTrace, ServingEvent } from "./observation-types.ts";

export function newTrace(operation: string): RequestTrace {
  return { requestId: newRequestId(), operation, keyId: undefined, code: undefined, creditsUsed: 0, client: undefined };
}

export interface RequestObserver {
  /** `started` is performance.now() when the request was routed. */
  answered(trace: RequestTrace, status: number, snapshot: string | undefined, started: number): void;
}

/** Answers of the pipeline that refuse the caller (counted by reason); a 404 or a 500 is not one. */
const refusals: ReadonlySet<ErrorCode> = new Set(["INVALID_API_KEY", "FORBIDDEN", "RATE_LIMITED", "INSUFFICIENT_CREDITS", "INVALID_REQUEST"]);

/**
 * Undefined when neither the log (at info) nor metrics would see a request: then the app does not
 * even read the clock for it. The level is read once, when the app is created.
 */
export function requestObserver(logger: Logger, metrics: Metrics | undefined): RequestObserver | undefined {
  const log = logger.isLevelEnabled("info");
  if (!log && metrics === undefined) return undefined;
  return {
    answered(trace, status, snapshot, started) {
      const seconds = (performance.now() - started) / 1000;
      if (log) {
        logger.info({
          request_id: trace.requestId, client: trace.client, key_id: trace.keyId, operation: trace.operation, status, code: trace.code,
          reason: status === CLIENT_CLOSED ? "client_closed" : undefined,
          credits_used: trace.creditsUsed, duration_us: Math.round(seconds * 1e6), snapshot,
        }, "request");
      }
      if (metrics === undefined) return;
      metrics.requests.inc({ operation: trace.operation, status });
      metrics.latency.observe({ operation: trace.operation }, seconds);
      if (trace.creditsUsed > 0) metrics.credits.inc({ operation: trace.operation }, trace.creditsUsed);
      if (trace.code !== undefined && refusals.has(trace.code)) metrics.refused.inc({ reason: trace.code.toLowerCase() });
    },
  };
}

/** The `log` of Serving: swaps and refusals at info and warn, stale warnings at warn; swaps counted. */
export function servingLog(logger: Logger, metrics: Metrics | undefined): (line: string, event: ServingEvent) => void {
  return (line, event) => {
    if (event.event === "snapshot_swapped") logger.info(event, line);
    else logger.warn(event, line);
    if (event.event === "snapshot_swapped") metrics?.swapped("swapped");
    if (event.event === "snapshot_refused") metrics?.swapped("refused");
  };
}

/** Answers the listener gives by itself (listen.ts): logged like any request, counted as refusals. */
export function listenerLog(logger: Logger, metrics: Metrics | undefined): (reason: string, requestId: string, status: number, client: string | undefined) => void {
  return (reason, requestId, status, client) => {
    const code = status === 429 ? "RATE_LIMITED" : "INVALID_REQUEST";
    logger.info({ request_id: requestId, client, operation: "listener", status, code, reason, credits_used: 0 }, "request");
    metrics?.refused.inc({ reason });
  };
}
