// The server's view of the meter file: key lookup, read-only status, and each request settled from
// admission to charge (steps 2 and 5-9 of the check order, product decisions 3 and 20): key state,
// rate window and balance read, then the operation, then its charge, in one job. The requests of one
// event-loop turn share one write transaction, each key's in its own savepoint; a meter locked by
// another process is waited for asynchronously, never by blocking the event loop for more than
// BUSY_WAIT_MS at a time.
import { RATE_WINDOW_MS, operationPolicy, type OperationId, type Scope, type Tier } from "../../policy.ts";
import { openMeterDatabase } from "./database.ts";
import { scopesFromColumn, tierFromColumn } from "../_columns.ts";
import { MeterStatements, RECORD_CHARGES_MAX, type KeyLookupRow } from "./_statements.ts";
import { SqliteRefills } from "./_refill.ts";
import { hashSecret } from "../secret.ts";
import { WriteQueue } from "./_queue.ts";
import { Reachability } from "../reachability.ts";
import { admissionOf, peekWindow, windowStartOf } from "../_windows.ts";
import { effectiveState, keyAt, keyRecordOf, parseRefillEvery } from "../lifecycle.ts";
import type {
  Admission, Charge, ChargeRequest, Decision, KeyRecord, KeyState, Meter, MeterOptions, MeterStatus, SettleRequest, Settlement,
} from "../interface.ts";

const KEY_CACHE_LIMIT = 10_000;

export class SqliteMeter implements Meter {
  readonly #now: () => number;
  readonly #sql: MeterStatements;
  readonly #refills: SqliteRefills;
  readonly #writes: WriteQueue;
  readonly #close: () => void;
  readonly #reachability: Reachability;
  /**
   * Keys by the secret as sent, valid while no other connection has committed (see findKey): a
   * request with a known secret costs no sha256. The secrets held are those of requests
   * this process is answering anyway; the file still stores only hashes.
   */
  #keyCache = new Map<string, KeyRecord | undefined>();
  #keyCacheVersion = -1;
  /** True once this event-loop turn has compared the cache with the file (see findKey). */
  #keyCacheChecked = false;
  readonly #endOfTurn = (): void => {
    this.#keyCacheChecked = false;
  };

  static open(file: string, options: MeterOptions = {}): SqliteMeter {
    return new SqliteMeter(file, options);
  }

  private constructor(file: string, options: MeterOptions) {
    this.#now = options.now ?? Date.now;
    const warn = options.warn;
    const db = openMeterDatabase(file, {
      synchronous: options.synchronous, now: this.#now, ...(warn === undefined ? {} : { warn: (message: string) => warn("meter_file_readable", message) }),
    });
    this.#sql = new MeterStatements(db, RATE_WINDOW_MS);
    this.#refills = new SqliteRefills(db);
    // A local file is unreachable only when a transaction failed or waited out its bound: then, and
    // only then, taking the write lock (and letting it go) says whether it is free again.
    const reachability = new Reachability(async () => {
      db.prepare("BEGIN IMMEDIATE").run();
      db.prepare("ROLLBACK").run();
    }, { probeWhileReachable: false });
    this.#reachability = reachability;
    const observer = options.observer;
    this.#writes = new WriteQueue(db, {
      batch: (jobs, seconds) => {
        reachability.succeeded();
        observer?.batch(jobs, seconds);
      },
      failed: (kind) => {
        reachability.failed();
        observer?.failed(kind);
      },
    });
    this.#close = () => db.close();
  }

  reachable(): Promise<boolean> {
    return this.#reachability.reachable();
  }

  /**
   * Once per event-loop turn, PRAGMA data_version tells whether another connection (another
   * process, `cei keys`) has committed since the last look, and then every cached key is read
   * again: a change made by `cei keys` is seen from the next turn on. A disabled or revoked key is
   * refused even within the turn, by settle(), which reads its state in its own transaction. A
   * read: in WAL mode it never waits for another process's write lock. Once per turn rather than
   * per request: its read transaction cost ~3.5 µs of a ~60 µs request under load.
   * Already as fresh as a turn, so `fresh` asks nothing more.
   */
  findKey(secret: string): KeyRecord | undefined {
    if (!this.#keyCacheChecked) {
      this.#keyCacheChecked = true;
      setImmediate(this.#endOfTurn);
      const version = this.#sql.dataVersion.get()!;
      if (version !== this.#keyCacheVersion) {
        this.#keyCache.clear();
        this.#keyCacheVersion = version;
      }
    }
    let key: KeyRecord | undefined;
    if (this.#keyCache.has(secret)) {
      key = this.#keyCache.get(secret);
    } else {
      key = this.#lookUp(secret);
      // Bounded: unknown secrets are cached too (a 401 flood must not reach the file every time).
      if (this.#keyCache.size >= KEY_CACHE_LIMIT) this.#keyCache.clear();
      this.#keyCache.set(secret, key);
    }
    // A cached key may expire, or its rerolled secret's grace end, with nothing written to the file.
    return key === undefined ? undefined : keyAt(key, this.#now);
  }

  /** The key of a secret: the key's own, or one a reroll replaced (with the end of its grace). */
  #lookUp(secret: string): KeyRecord | undefined {
    const hash = hashSecret(secret);
    const row: KeyLookupRow | undefined = this.#sql.keyBySecretHash.get(hash) ?? this.#sql.keyByRetiredSecret.get(hash);
    return row === undefined ? undefined : keyRecordOf(row, hash, row.valid_until ?? null);
  }

  /** Balance and current window without counting anything (for answers given before the rate step). */
  status(key: KeyRecord): MeterStatus {
    return { credits_remaining: this.#balance(key.id), rate_limit: peekWindow(this.#sql.windowOf.get(key.id), key.tier, this.#now()) };
  }

  /**
   * Admission, work and charge in one job of the write queue: one transaction per event-loop turn
   * holds the requests of that turn from count to charge. The requests of one key queued one after
   * another run as one (#settleAll).
   */
  settle<T>(request: SettleRequest<T>): Promise<Settlement<T>> {
    return this.#writes.enqueue<Settlement<T>, SettleRequest<T>>({
      id: request.key.id,
      item: request,
      run: (requests) => this.#settleAll(requests),
    });
  }

  /** Settles anything still pending (if the file is free), then closes it. */
  close(): void {
    this.#writes.drain();
    this.#close();
  }

  /**
   * Requests of one key, in queue order, with what settling them one after another gives: the key's
   * state read once, the window counting them all in one statement (the n-th sees the count as it
   * stood after it), each work given the balance left by the charges before it, and one UPDATE and
   * one multi-row INSERT for all their charges.
   */
  #settleAll(requests: ReadonlyArray<SettleRequest<unknown>>): Array<Settlement<unknown>> {
    const key = requests[0]!.key;
    const now = this.#now();
    const current = this.#sql.keyStateById.get(key.id);
    const state = current === undefined ? "revoked" : effectiveState(current.state, current.expires_at === null ? null : Date.parse(current.expires_at), now);
    if (current === undefined || state !== "active") {
      const tier = current === undefined ? key.tier : tierFromColumn(current.tier);
      const admission: Admission = {
        result: state === "expired" ? "expired" : "forbidden", credits_remaining: this.#balance(key.id), rate_limit: peekWindow(this.#sql.windowOf.get(key.id), tier, now),
      };
      return requests.map(() => ({ outcome: "refused", admission }));
    }
    // Decision 37: a refill due in this period is applied before the balance is read, once.
    if (current.refill_every !== null && current.refill_to !== null) this.#refills.applyDue(key.id, parseRefillEvery(current.refill_every), current.refill_to, now);
    const tier = tierFromColumn(current.tier);
    const scopes = scopesFromColumn(current.scopes);
    let credits = this.#balance(key.id);
    const window = this.#sql.countRequests.get(key.id, windowStartOf(now), requests.length)!;
    let counted = window.request_count - requests.length;
    const charged: Array<{ request: SettleRequest<unknown>; cost: number }> = [];
    const settlements = requests.map((request): Settlement<unknown> => {
      counted += 1;
      const admission = admissionOf(tier, { window_start: window.window_start, request_count: counted }, credits, now);
      if (admission.result !== "admitted") return { outcome: "refused", admission };
      if (!_inScope(scopes, request.operation)) return { outcome: "refused", admission: { ...admission, result: "out_of_scope" } };
      let decision: Decision<unknown>;
      try {
        decision = request.work(admission);
      } catch (error) {
        return { outcome: "failed", admission, error };
      }
      const { value, cost } = decision;
      if (cost === 0) return { outcome: "answered", admission, value, charge: undefined };
      if (cost > credits) return { outcome: "answered", admission, value, charge: { result: "insufficient_credits", credits_remaining: credits } };
      // Decision 39: asked inside the transaction that would commit the charge, so a client gone
      // by now is neither charged nor answered.
      if (request.abandoned?.() === true) return { outcome: "abandoned", admission };
      credits -= cost;
      charged.push({ request, cost });
      return { outcome: "answered", admission, value, charge: { result: "charged", credits_remaining: credits } };
    });
    if (charged.length > 0) this.#recordCharges(key.id, charged, now);
    return settlements;
  }

  /** One UPDATE for the sum (the balance covers it: each work was given what was left), a ledger row each. */
  #recordCharges(keyId: string, charged: ReadonlyArray<{ request: SettleRequest<unknown>; cost: number }>, now: number): void {
    const total = charged.reduce((sum, { cost }) => sum + cost, 0);
    if (this.#sql.chargeCredits.get(total, keyId, total) === undefined) throw new Error(`the balance of ${keyId} changed inside the meter's own transaction`);
    const createdAt = new Date(now).toISOString();
    for (let first = 0; first < charged.length; first += RECORD_CHARGES_MAX) {
      const rows = charged.slice(first, first + RECORD_CHARGES_MAX);
      // Only the work of a matched route charges (an unmatched request's work is free).
      const values = rows.flatMap(({ request, cost }) => [keyId, request.operation!, -cost, request.requestId, createdAt]);
      this.#sql.recordCharges(rows.length).run(...values);
    }
  }

  #balance(keyId: string): number {
    return this.#sql.balanceOf.get(keyId) ?? 0;
  }
}

/** Whether `scopes` reach `operation` (decision 8); an operation without a scope, or no route, is open to every key. */
function _inScope(scopes: ReadonlySet<Scope>, operation: OperationId | null): boolean {
  if (operation === null) return true;
  const { scope } = operationPolicy[operation];
  return scope === null || scopes.has(scope);
}
