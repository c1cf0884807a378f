// The server's view of the meter file: key lookup, read-only status, admission (steps 2 and 5 of
// the check order, product decisions 3 and 20: key state, rate window, balance read) before the
// operation runs, and the charge after it. The admissions and charges of one event-loop turn share
// one write transaction, each in its own savepoint; a meter locked by another process is waited for
// asynchronously, never by blocking the event loop for more than BUSY_WAIT_MS at a time.
import { RATE_WINDOW_MS, type OperationId, type Scope, type Tier } from "../policy.ts";
import { openMeterDatabase } from "./_database.ts";
import { scopesFromColumn, tierFromColumn } from "./_columns.ts";
import { MeterStatements, RECORD_CHARGES_MAX, type KeyState } from "./_statements.ts";
import { hashSecret } from "./_secret.ts";
import { WriteQueue, type MeterObserver } from "./_queue.ts";
import { admissionOf, peekWindow, windowStartOf } from "./_windows.ts";

export type { KeyState } from "./_statements.ts";
export { METER_WAIT_LIMIT_MS, MeterBusyError, type MeterObserver } from "./_queue.ts";
export interface KeyRecord { id: string; tier: Tier; scopes: ReadonlySet<Scope>; state: KeyState }
/** `reset_at` is ISO 8601 UTC with milliseconds. */
export interface RateLimitInfo { limit: number; remaining: number; reset_at: string; tier: Tier }
export interface MeterStatus { credits_remaining: number; rate_limit: RateLimitInfo }
/** The rate step and the balance as they stood when the request was counted. */
export interface Admission extends MeterStatus {
  result: "admitted" | "forbidden" | "rate_limited";
  /** Only for rate_limited: whole seconds to reset_at, rounded up, from 1 to the window length. */
  retry_after_s?: number;
}
export interface ChargeRequest { key: KeyRecord; operation: OperationId; cost: number; requestId: string }
export interface Charge { result: "charged" | "forbidden" | "insufficient_credits"; credits_remaining: number }
export interface MeterOptions {
  now?: () => number;
  /** SQLite only: PostgreSQL's durability is the server's own `synchronous_commit`. */
  synchronous?: "FULL" | "NORMAL";
  /** Told of every write transaction and failed job (the metrics, server/metrics.ts). */
  observer?: MeterObserver;
}

/**
 * What the request pipeline needs of a meter; the SQLite file (`SqliteMeter`, one machine) and
 * PostgreSQL (`PostgresMeter`, any number of readers) implement it with the same semantics.
 * Lookups and status reads may answer synchronously (SQLite) or after a round trip (PostgreSQL).
 */
export interface Meter {
  /** The key a bearer secret names, as it stands now: a disabled or revoked key is seen at once. */
  findKey(secret: string): KeyRecord | undefined | Promise<KeyRecord | undefined>;
  /** Balance and current window without counting anything (for answers given before the rate step). */
  status(key: KeyRecord): MeterStatus | Promise<MeterStatus>;
  /** Key state, the request counted in its window, the balance read; resolves after the commit. */
  admit(key: KeyRecord): Promise<Admission>;
  /** The balance check and the charge in one conditional UPDATE plus its ledger row; resolves after the commit. */
  charge(request: ChargeRequest): Promise<Charge>;
  /** Settles what is pending, then releases the file or the connections. */
  close(): void | Promise<void>;
}

const KEY_CACHE_LIMIT = 10_000;

export class SqliteMeter implements Meter {
  readonly #now: () => number;
  readonly #sql: MeterStatements;
  readonly #writes: WriteQueue;
  readonly #close: () => void;
  /**
   * Keys by the secret as sent, valid while no other connection has committed (see findKey): a
   * request with a known secret costs no sha256 (issue 12). The secrets held are those of requests
   * this process is answering anyway; the file still stores only hashes.
   */
  #keyCache = new Map<string, KeyRecord | undefined>();
  #keyCacheVersion = -1;

  static open(file: string, options: MeterOptions = {}): SqliteMeter {
    return new SqliteMeter(file, options);
  }

  private constructor(file: string, options: MeterOptions) {
    this.#now = options.now ?? Date.now;
    const db = openMeterDatabase(file, { synchronous: options.synchronous, now: this.#now });
    this.#sql = new MeterStatements(db, RATE_WINDOW_MS);
    this.#writes = new WriteQueue(db, options.observer);
    this.#close = () => db.close();
  }

  /**
   * Disabling or revoking takes effect on the next request everywhere: PRAGMA data_version changes
   * whenever another connection (another process, `cei keys`) commits, and then every cached key is
   * read again. This connection only ever writes balances, windows and the ledger, never keys.
   * A read: in WAL mode it never waits for another process's write lock.
   */
  findKey(secret: string): KeyRecord | undefined {
    const version = this.#sql.dataVersion.get()!;
    if (version !== this.#keyCacheVersion) {
      this.#keyCache.clear();
      this.#keyCacheVersion = version;
    }
    if (this.#keyCache.has(secret)) return this.#keyCache.get(secret);
    const row = this.#sql.keyBySecretHash.get(hashSecret(secret));
    const key = row === undefined ? undefined : { id: row.id, tier: tierFromColumn(row.tier), scopes: scopesFromColumn(row.scopes), state: row.state };
    // Bounded: unknown secrets are cached too (a 401 flood must not reach the file every time).
    if (this.#keyCache.size >= KEY_CACHE_LIMIT) this.#keyCache.clear();
    this.#keyCache.set(secret, key);
    return key;
  }

  /** Balance and current window without counting anything (for answers given before the rate step). */
  status(key: KeyRecord): MeterStatus {
    return { credits_remaining: this.#balance(key.id), rate_limit: peekWindow(this.#sql.windowOf.get(key.id), key.tier, this.#now()) };
  }

  /**
   * Counts the request in its key's window and reads the balance, as the file stands (state and
   * tier included). Resolves after the count has committed; rejects with MeterBusyError (nothing
   * counted) when the meter stayed locked by another process for METER_WAIT_LIMIT_MS.
   */
  admit(key: KeyRecord): Promise<Admission> {
    // Its one write (the window's count) is its last statement: a failure before it leaves nothing
    // and the statement itself is atomic, so it needs no savepoint of its own. The admissions of
    // one key queued one after another are counted with one statement (#admitAll).
    return this.#writes.enqueue(() => this.#admitNow(key), {
      atomic: false,
      together: { id: `admit ${key.id}`, item: key, run: (keys) => this.#admitAll(keys) },
    });
  }

  /** The balance check and the charge in one conditional UPDATE; resolves after it has committed. */
  charge(request: ChargeRequest): Promise<Charge> {
    return this.#writes.enqueue(() => this.#chargeNow(request), {
      atomic: true,
      together: { id: `charge ${request.key.id}`, item: request, run: (requests) => this.#chargeAll(requests) },
    });
  }

  /** Settles anything still pending (if the file is free), then closes it. */
  close(): void {
    this.#writes.drain();
    this.#close();
  }

  #admitNow(key: KeyRecord): Admission {
    return this.#admitAll([key])[0]!;
  }

  /**
   * Admissions of one key, in queue order: what admitting them one after another gives. The window
   * counts them all in one statement; the n-th sees the count as it stood after it.
   */
  #admitAll(keys: KeyRecord[]): Admission[] {
    const key = keys[0]!;
    const now = this.#now();
    const current = this.#sql.keyStateById.get(key.id);
    if (current === undefined || current.state !== "active") {
      const tier = current === undefined ? key.tier : tierFromColumn(current.tier);
      const credits = this.#balance(key.id);
      const window = this.#sql.windowOf.get(key.id);
      return keys.map(() => ({ result: "forbidden", credits_remaining: credits, rate_limit: peekWindow(window, tier, now) }));
    }
    const window = this.#sql.countRequests.get(key.id, windowStartOf(now), keys.length)!;
    const tier = tierFromColumn(current.tier);
    const credits = this.#balance(key.id);
    const before = window.request_count - keys.length;
    return keys.map((_, i) => admissionOf(tier, { window_start: window.window_start, request_count: before + i + 1 }, credits, now));
  }

  #chargeNow({ key, operation, cost, requestId }: ChargeRequest): Charge {
    const current = this.#sql.keyStateById.get(key.id);
    if (current === undefined || current.state !== "active") return { result: "forbidden", credits_remaining: this.#balance(key.id) };
    const remaining = this.#sql.chargeCredits.get(cost, key.id, cost);
    if (remaining === undefined) return { result: "insufficient_credits", credits_remaining: this.#balance(key.id) };
    this.#sql.recordCharge.run(key.id, operation, -cost, requestId, new Date(this.#now()).toISOString());
    return { result: "charged", credits_remaining: remaining };
  }

  /**
   * Charges of one key, in queue order: what charging them one after another gives. When the
   * balance covers them all, one UPDATE takes their sum and the n-th reports the balance as it
   * stood after it; otherwise each is charged in turn until the balance runs short.
   */
  #chargeAll(requests: ChargeRequest[]): Charge[] {
    const key = requests[0]!.key;
    const current = this.#sql.keyStateById.get(key.id);
    if (current === undefined || current.state !== "active") {
      const credits = this.#balance(key.id);
      return requests.map(() => ({ result: "forbidden", credits_remaining: credits }));
    }
    const total = requests.reduce((sum, request) => sum + request.cost, 0);
    const remaining = this.#sql.chargeCredits.get(total, key.id, total);
    if (remaining === undefined) return requests.map((request) => this.#chargeNow(request));
    const createdAt = new Date(this.#now()).toISOString();
    for (let first = 0; first < requests.length; first += RECORD_CHARGES_MAX) {
      const rows = requests.slice(first, first + RECORD_CHARGES_MAX);
      const values = rows.flatMap(({ operation, cost, requestId }) => [key.id, operation, -cost, requestId, createdAt]);
      this.#sql.recordCharges(rows.length).run(...values);
    }
    let credits = remaining + total;
    return requests.map(({ cost }): Charge => ({ result: "charged", credits_remaining: (credits -= cost) }));
  }

  #balance(keyId: string): number {
    return this.#sql.balanceOf.get(keyId) ?? 0;
  }
}
