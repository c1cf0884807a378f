// The server's view of the meter file: key lookup, read-only status, and settle(), which runs
// steps 5-9 of the check order (product decision 3) in one transaction per event-loop turn.
import type { Statement } from "better-sqlite3";
import { RATE_WINDOW_MS, tierRateLimits, type OperationId, type Scope, type Tier } from "../policy.ts";
import { openMeterDatabase, type MeterDatabase } from "./_database.ts";
import { scopesFromColumn, tierFromColumn } from "./_columns.ts";
import { hashSecret } from "./_secret.ts";

export type KeyState = "active" | "disabled" | "revoked";
export interface KeyRecord { id: string; tier: Tier; scopes: ReadonlySet<Scope>; state: KeyState }
/** `reset_at` is ISO 8601 UTC with milliseconds. */
export interface RateLimitInfo { limit: number; remaining: number; reset_at: string; tier: Tier }
export interface MeterStatus { credits_remaining: number; rate_limit: RateLimitInfo }
/** What the operation computed, side-effect free. */
export type Outcome = "ok" | "invalid" | "not_found";
export interface Settlement {
  result: "charged" | "forbidden" | "rate_limited" | "invalid" | "insufficient_credits" | "not_found";
  credits_used: number;
  credits_remaining: number;
  rate_limit: RateLimitInfo;
  /** Only for rate_limited: whole seconds to reset_at, rounded up, never 0. */
  retry_after_s?: number;
}
export interface SettleRequest {
  key: KeyRecord;
  operation: OperationId;
  cost: number;
  requestId: string;
  outcome: Outcome;
}
export interface MeterOptions {
  now?: () => number;
  synchronous?: "FULL" | "NORMAL";
}

interface PendingSettle {
  request: SettleRequest;
  resolve: (settlement: Settlement) => void;
  reject: (error: unknown) => void;
}
interface KeyRow { id: string; tier: string; scopes: string; state: KeyState }
interface WindowRow { window_start: number; request_count: number }

const KEY_CACHE_LIMIT = 10_000;

/** Fixed windows aligned to the epoch: every process computes the same window for the same instant. */
export function windowStartOf(now: number): number {
  return Math.floor(now / RATE_WINDOW_MS) * RATE_WINDOW_MS;
}

export class Meter {
  readonly #db: MeterDatabase;
  readonly #now: () => number;
  #pending: PendingSettle[] = [];
  #flushScheduled = false;

  readonly #keyBySecretHash: Statement<[string], KeyRow>;
  readonly #dataVersion: Statement<[], number>;
  /** Keys by secret hash, valid while no other connection has committed (see findKey). */
  #keyCache = new Map<string, KeyRecord | undefined>();
  #keyCacheVersion = -1;
  readonly #keyStateById: Statement<[string], { state: KeyState; tier: string }>;
  readonly #balanceOf: Statement<[string], number>;
  readonly #windowOf: Statement<[string], WindowRow>;
  readonly #countRequest: Statement<[string, number], WindowRow>;
  readonly #chargeCredits: Statement<[number, string, number], number>;
  readonly #recordCharge: Statement<[string, string, number, string, string]>;
  readonly #settleBatch: (requests: SettleRequest[]) => Settlement[];

  static open(file: string, options: MeterOptions = {}): Meter {
    const now = options.now ?? Date.now;
    return new Meter(openMeterDatabase(file, { synchronous: options.synchronous, now }), now);
  }

  private constructor(db: MeterDatabase, now: () => number) {
    this.#db = db;
    this.#now = now;
    this.#keyBySecretHash = db.prepare("SELECT id, tier, scopes, state FROM keys WHERE secret_sha256 = ?");
    this.#dataVersion = db.prepare<[], number>("PRAGMA data_version").pluck();
    this.#keyStateById = db.prepare("SELECT state, tier FROM keys WHERE id = ?");
    this.#balanceOf = db.prepare<[string], number>("SELECT credits FROM balances WHERE key_id = ?").pluck();
    this.#windowOf = db.prepare("SELECT window_start, request_count FROM rate_windows WHERE key_id = ?");
    // A process whose clock lags never moves a window backwards: it counts in the newer one.
    this.#countRequest = db.prepare(`
      INSERT INTO rate_windows (key_id, window_start, request_count) VALUES (?, ?, 1)
      ON CONFLICT (key_id) DO UPDATE SET
        request_count = CASE WHEN excluded.window_start > window_start THEN 1 ELSE request_count + 1 END,
        window_start = max(window_start, excluded.window_start)
      RETURNING window_start, request_count`);
    this.#chargeCredits = db
      .prepare<[number, string, number], number>(
        "UPDATE balances SET credits = credits - ? WHERE key_id = ? AND credits >= ? RETURNING credits",
      )
      .pluck();
    this.#recordCharge = db.prepare(`
      INSERT INTO ledger (key_id, kind, operation, delta, request_id, created_at)
      VALUES (?, 'charge', ?, ?, ?, ?)`);
    const settleAll = db.transaction((requests: SettleRequest[]) => {
      const now = this.#now();
      const at = new Date(now).toISOString();
      return requests.map((request) => this.#settleOne(request, now, at));
    });
    // BEGIN IMMEDIATE: take the write lock up front, so concurrent processes queue on busy_timeout
    // instead of failing to upgrade a read transaction.
    this.#settleBatch = settleAll.immediate;
  }

  /**
   * Disabling or revoking takes effect on the next request everywhere: PRAGMA data_version changes
   * whenever another connection (another process, `cei keys`) commits, and then every cached key is
   * read again. This connection only ever writes balances, windows and the ledger, never keys.
   */
  findKey(secret: string): KeyRecord | undefined {
    const version = this.#dataVersion.get()!;
    if (version !== this.#keyCacheVersion) {
      this.#keyCache.clear();
      this.#keyCacheVersion = version;
    }
    const hash = hashSecret(secret);
    if (this.#keyCache.has(hash)) return this.#keyCache.get(hash);
    const row = this.#keyBySecretHash.get(hash);
    const key = row === undefined ? undefined : { id: row.id, tier: tierFromColumn(row.tier), scopes: scopesFromColumn(row.scopes), state: row.state };
    // Bounded: unknown secrets are cached too (a 401 flood must not reach the file every time).
    if (this.#keyCache.size >= KEY_CACHE_LIMIT) this.#keyCache.clear();
    this.#keyCache.set(hash, key);
    return key;
  }

  /** Balance and current window without counting anything (for answers given before the rate step). */
  status(key: KeyRecord): MeterStatus {
    return { credits_remaining: this.#balanceOf.get(key.id) ?? 0, rate_limit: this.#peekWindow(key.id, key.tier, this.#now()) };
  }

  /**
   * Resolves after the transaction holding this request has committed; rejects (nothing charged)
   * if it failed. All calls made during one event-loop turn share one transaction.
   */
  settle(request: SettleRequest): Promise<Settlement> {
    return new Promise<Settlement>((resolve, reject) => {
      this.#pending.push({ request, resolve, reject });
      if (!this.#flushScheduled) {
        this.#flushScheduled = true;
        setImmediate(this.#flush);
      }
    });
  }

  /** Settles anything still pending, then closes the file. */
  close(): void {
    this.#flush();
    this.#db.close();
  }

  readonly #flush = (): void => {
    this.#flushScheduled = false;
    const batch = this.#pending;
    if (batch.length === 0) return;
    this.#pending = [];
    let settlements: Settlement[];
    try {
      settlements = this.#settleBatch(batch.map((pending) => pending.request));
    } catch (error) {
      for (const pending of batch) pending.reject(error);
      return;
    }
    batch.forEach((pending, index) => pending.resolve(settlements[index]!));
  };

  #settleOne({ key, operation, cost, requestId, outcome }: SettleRequest, now: number, at: string): Settlement {
    const current = this.#keyStateById.get(key.id);
    if (current === undefined || current.state !== "active") {
      const tier = current === undefined ? key.tier : tierFromColumn(current.tier);
      return this.#refuse("forbidden", key.id, this.#peekWindow(key.id, tier, now));
    }
    const tier = tierFromColumn(current.tier);
    const limit = tierRateLimits[tier];
    const window = this.#countRequest.get(key.id, windowStartOf(now))!;
    const rateLimit = rateLimitInfo(tier, window.window_start, window.request_count);
    if (window.request_count > limit) {
      const refusal = this.#refuse("rate_limited", key.id, rateLimit);
      refusal.retry_after_s = Math.max(1, Math.ceil((window.window_start + RATE_WINDOW_MS - now) / 1000));
      return refusal;
    }
    if (outcome === "invalid") return this.#refuse("invalid", key.id, rateLimit);
    if (outcome === "not_found") {
      const balance = this.#balanceOf.get(key.id) ?? 0;
      return this.#refuse(balance < cost ? "insufficient_credits" : "not_found", key.id, rateLimit, balance);
    }
    // The balance check and the charge are one conditional UPDATE: it never goes below zero.
    const remaining = this.#chargeCredits.get(cost, key.id, cost);
    if (remaining === undefined) return this.#refuse("insufficient_credits", key.id, rateLimit);
    this.#recordCharge.run(key.id, operation, -cost, requestId, at);
    return { result: "charged", credits_used: cost, credits_remaining: remaining, rate_limit: rateLimit };
  }

  #refuse(
    result: Exclude<Settlement["result"], "charged">,
    keyId: string,
    rateLimit: RateLimitInfo,
    balance: number = this.#balanceOf.get(keyId) ?? 0,
  ): Settlement {
    return { result, credits_used: 0, credits_remaining: balance, rate_limit: rateLimit };
  }

  #peekWindow(keyId: string, tier: Tier, now: number): RateLimitInfo {
    const start = windowStartOf(now);
    const row = this.#windowOf.get(keyId);
    if (row === undefined || row.window_start < start) return rateLimitInfo(tier, start, 0);
    return rateLimitInfo(tier, row.window_start, row.request_count);
  }
}

function rateLimitInfo(tier: Tier, windowStart: number, used: number): RateLimitInfo {
  const limit = tierRateLimits[tier];
  return {
    limit,
    remaining: Math.max(0, limit - used),
    reset_at: new Date(windowStart + RATE_WINDOW_MS).toISOString(),
    tier,
  };
}
