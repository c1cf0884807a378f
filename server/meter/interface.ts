// What the rest of the server needs of a meter, whichever backend runs it: the SQLite file
// (sqlite/, one machine) or PostgreSQL (postgres/, any number of readers). Nothing above
// server/meter/ imports a backend; open.ts picks one from the --meter location.
import type { OperationId, Scope, Tier } from "../policy.ts";

/** The longest a request waits for the meter's write lock before it is answered 500. */
export const METER_WAIT_LIMIT_MS = 2_000;

export class MeterBusyError extends Error {
  override name = "MeterBusyError";
  constructor(message = `the meter file stayed locked by another process for ${METER_WAIT_LIMIT_MS} ms`) {
    super(message);
  }
}

/**
 * Told of every committed transaction and every failed job (the service's metrics). `busy`: the
 * meter stayed locked for METER_WAIT_LIMIT_MS; `unreachable`: no connection to it (PostgreSQL);
 * `failed`: anything else.
 */
export interface MeterObserver {
  batch(jobs: number, seconds: number): void;
  failed(kind: MeterFailure): void;
}
export type MeterFailure = "busy" | "unreachable" | "failed";

/** A key's state as stored; "expired" is not stored: a key whose `expires_at` has passed is expired (decision 37). */
export type KeyState = "active" | "disabled" | "revoked";
export interface KeyRecord {
  id: string;
  tier: Tier;
  scopes: ReadonlySet<Scope>;
  /** As it stands at the lookup: the stored state, or "expired" (keyAt, lifecycle.ts). */
  state: KeyState | "expired";
  /** The sha256 of the secret the request was sent with (the key's own, or a rerolled one in its grace). */
  secretSha256: string;
  /** When the key expires (ms since the epoch), if ever. */
  expiresAt: number | null;
  /** For a secret replaced by `cei keys reroll`: the end of its grace period (ms); null for the key's current secret. */
  graceUntil: number | null;
}
/** `reset_at` is ISO 8601 UTC with milliseconds. */
export interface RateLimitInfo { limit: number; remaining: number; reset_at: string; tier: Tier }
export interface MeterStatus { credits_remaining: number; rate_limit: RateLimitInfo }
/**
 * The key as it stands in the meter when the request is counted (decision 27): `forbidden`
 * (disabled or revoked since it was looked up), `expired` (its moment has passed) and `unknown` (the
 * secret was rerolled and its grace is over: 401) are not counted; every other request is counted
 * first, then `rate_limited` (over the window) or `out_of_scope` (the operation's scope is not the
 * key's). Balance and window as they stood.
 */
export interface Admission extends MeterStatus {
  result: "admitted" | "forbidden" | "expired" | "unknown" | "out_of_scope" | "rate_limited";
  /** Only for rate_limited: whole seconds to reset_at, rounded up, from 1 to the window length. */
  retry_after_s?: number;
}
export interface ChargeRequest {
  key: KeyRecord; operation: OperationId; cost: number; requestId: string;
  /** See SettleRequest.abandoned. */
  abandoned?: () => boolean;
}
export interface Charge { result: "charged" | "forbidden" | "insufficient_credits"; credits_remaining: number }

/** What the work of an admitted request decided: its answer, and the credits it costs (0: nothing is charged). */
export interface Decision<T> { value: T; cost: number }

/** One request from admission to charge (steps 3-9 of decision 27; admission before work, decision 20). */
export interface SettleRequest<T> {
  key: KeyRecord;
  /** null: the path or method matched no route; counted, then answered by the work (404, free). */
  operation: OperationId | null;
  requestId: string;
  /**
   * Steps 6-8 for an admitted request: validation, the balance against the cost, the operation.
   * Synchronous and without side effects: the SQLite meter runs it inside its write transaction,
   * right after counting the request, and may run it again if that transaction is retried.
   */
  work(admission: Admission): Decision<T>;
  /**
   * Whether the client has gone (its connection closed), asked at the last moment before the charge
   * commits: true, and nothing is charged (decision 39). Undefined: a client that cannot go away.
   */
  abandoned?: () => boolean;
}

export type Settlement<T> =
  /** Not admitted (admission.result says why): the work did not run, nothing was charged. */
  | { outcome: "refused"; admission: Admission }
  /** The work threw: nothing was charged. */
  | { outcome: "failed"; admission: Admission; error: unknown }
  /** The work's answer, and its charge as committed (undefined when it cost nothing). */
  | { outcome: "answered"; admission: Admission; value: T; charge: Charge | undefined }
  /** The work cost something, but the client had gone before the charge: nothing was charged (decision 39). */
  | { outcome: "abandoned"; admission: Admission };

export interface MeterOptions {
  now?: () => number;
  /** SQLite only: PostgreSQL's durability is the server's own `synchronous_commit`. */
  synchronous?: "FULL" | "NORMAL";
  /** Told of every write transaction and failed job (the metrics, server/metrics.ts). */
  observer?: MeterObserver;
  /**
   * Told of what the meter notices and survives: a meter file group or others can read, a
   * PostgreSQL connection the server closed. Default: a plain line on stderr (the CLI); `cei serve`
   * gives its log, so that every line it writes is JSON.
   */
  warn?: MeterWarn;
}

export type MeterWarn = (event: "meter_file_readable" | "meter_connection_lost" | "meter_tls_mode", message: string, error?: Error) => void;

/**
 * What the request pipeline needs of a meter; the SQLite file (`SqliteMeter`, one machine) and
 * PostgreSQL (`PostgresMeter`, any number of readers) implement it with the same semantics.
 * Lookups and status reads may answer synchronously (SQLite) or after a round trip (PostgreSQL).
 */
export interface Meter {
  /**
   * The key a bearer secret names. Its state, tier and scopes may be a little older than the file
   * (a cache): settle() reads them again, as they stand, and `fresh` reads them now, for a refusal
   * decided from them before settle (a wrong 403 or 404 would otherwise be possible).
   */
  findKey(secret: string, options?: { fresh?: boolean }): KeyRecord | undefined | Promise<KeyRecord | undefined>;
  /** Balance and current window without counting anything (for answers given before the rate step). */
  status(key: KeyRecord): MeterStatus | Promise<MeterStatus>;
  /**
   * Admission (key state, the request counted in its window, the balance read), then the
   * work, then the charge of what it cost; resolves once all of it has committed. Rejects with
   * MeterBusyError (nothing counted) when the meter stayed locked for METER_WAIT_LIMIT_MS.
   */
  settle<T>(request: SettleRequest<T>): Promise<Settlement<T>>;
  /**
   * Whether requests can be settled now (readiness, decision 40): false while the meter cannot be
   * reached or stays locked. Answered from what the meter's own traffic last showed, with at most
   * one probe a second when that is too old, so that a health check every second adds nothing.
   */
  reachable(): Promise<boolean>;
  /** Settles what is pending, then releases the file or the connections. */
  close(): void | Promise<void>;
}
