// What the request log and the metrics are told, in a file of its own so that the parts that
// tell them (the pipeline, serving) and the parts that listen (observe.ts, metrics.ts) import
// the vocabulary without importing one another.
import type { ErrorCode } from "./errors.ts";
import type { StaleWarning } from "./stale-warnings.ts";

/** `operation` is an operation id, healthz/readyz, reference (the docs pages) or unmatched (no route). */
export interface RequestTrace {
  readonly requestId: string;
  readonly operation: string;
  keyId: string | undefined;
  code: ErrorCode | undefined;
  creditsUsed: number;
  /** The client's address (behind a trusted proxy, from X-Forwarded-For); read only when observed. */
  client: string | undefined;
}

/** What a log line of serving says, as fields (the structured log, server/log.ts). */
export type ServingEvent =
  | { event: "snapshot_swapped"; snapshot: string; previous: string; file: string; check_ms: number }
  | { event: "snapshot_refused"; snapshot: string; file: string; reason: string }
  | StaleWarning;

export type SwapOutcome = "swapped" | "unchanged" | "refused";
