// The meter on PostgreSQL, shared by any number of readers (`cei serve --meter postgres://...`):
// the same semantics as the SQLite file's (sqlite/meter.ts). Key lookups, admissions and
// charges made during one event-loop turn each go as one statement, so one round trip and one
// transaction per batch; within a batch, rows are locked in key order, so that two readers'
// batches never deadlock. Active keys are kept in a cache by their secret, so a request of a known
// key makes two round trips (admission, charge), not three; the admission reads the key's state,
// tier and scopes as they stand, so a key disabled, revoked or narrowed by any process is refused
// on its next request in every reader, and a refusal decided before admission reads the key again
// (findKey's `fresh`). Rate windows are counted in the database; their start comes from the
// reader's clock (`now`), aligned to the epoch, as in the SQLite meter.
// No statement waits for a lock another transaction holds on a key's rows (an operator's session,
// a stuck migration): such a key is reported busy and tried again, alone, until its request's time
// bound (METER_WAIT_LIMIT_MS), so it never holds up the other keys of its batch.
import type pg from "pg";
import { RATE_WINDOW_MS, operationPolicy, type Scope } from "../../policy.ts";
import { tierFromColumn } from "../_columns.ts";
import { hashSecret } from "../secret.ts";
import { admissionOf, peekWindow, windowStartOf, type StoredWindow } from "../_windows.ts";
import { keyAt, keyRecordOf } from "../lifecycle.ts";
import {
  METER_WAIT_LIMIT_MS, MeterBusyError,
  type Admission, type Charge, type ChargeRequest, type Decision, type KeyRecord, type KeyState, type Meter, type MeterObserver, type MeterStatus, type MeterWarn,
  type Settlement, type SettleRequest,
} from "../interface.ts";
import { isUnreachable, Reachability } from "../reachability.ts";
import { TurnBatches } from "./_batches.ts";
import { applyPostgresMigrations } from "./_migrations.ts";
import { createPool } from "./pool.ts";

/** Batches of one kind out at once: the pool has room for lookups, admissions, charges and a status read. */
const IN_FLIGHT_PER_KIND = 1;
/** Active keys kept by secret at most; the cache starts again when full. */
const KEY_CACHE_LIMIT = 10_000;

interface KeyRow { secret_sha256: string; id: string; tier: string; scopes: string; state: KeyState; expires_at: string | null; valid_until: string | null }
interface AdmitRow { key_state: KeyState | "expired" | "unknown" | "busy" | null; key_tier: string | null; in_scope?: boolean | null; balance: number | null; win_start: number | null; win_count: number | null }
interface AdmitRequest { key: KeyRecord; scope: Scope | null }
interface ChargeRow { outcome: Charge["result"] | "busy"; balance: number | null }
interface StatusRow { balance: number | null; win_start: number | null; win_count: number | null }
/** A key whose rows another transaction holds: asked again after a pause. */
const BUSY = "busy";
type Busy = typeof BUSY;
/** A charge not sent: the request's client had gone (decision 39). */
const ABANDONED = "abandoned";
type Abandoned = typeof ABANDONED;
/** Pauses between tries of a busy key, growing to the last. */
const BUSY_PAUSES_MS = [1, 2, 5, 10, 20, 50];

/** Readiness's probe, when no statement has said for a second whether the database answers. */
const PROBE = { name: "cei_probe", text: "SELECT 1" };
/** Keys by their own secret, or by a secret a reroll replaced (with the end of its grace). */
const LOOKUP = {
  name: "cei_lookup_lifecycle",
  text: `SELECT k.secret_sha256, k.id, k.tier, k.scopes, k.state, k.expires_at, NULL AS valid_until FROM keys k WHERE k.secret_sha256 = ANY($1::text[])
         UNION ALL
         SELECT r.secret_sha256, k.id, k.tier, k.scopes, k.state, k.expires_at, r.valid_until
         FROM retired_secrets r JOIN keys k ON k.id = r.key_id WHERE r.secret_sha256 = ANY($1::text[])`,
};
const ADMIT = {
  name: "cei_admit_lifecycle_batch",
  text: `SELECT a.* FROM unnest($1::text[], $2::text[], $3::text[]) WITH ORDINALITY AS j(key_id, secret, scope, n)
         CROSS JOIN LATERAL cei_admit_lifecycle(j.key_id, j.secret, j.scope, $4, $5, $6) a ORDER BY j.n`,
};
const CHARGE = {
  name: "cei_charge_nowait_batch",
  text: `SELECT c.* FROM unnest($1::text[], $2::bigint[], $3::text[], $4::text[]) WITH ORDINALITY AS j(key_id, cost, operation, request_id, n)
         CROSS JOIN LATERAL cei_charge_nowait(j.key_id, j.cost, j.operation, j.request_id, $5) c ORDER BY j.n`,
};
/** Balance and window of keys refused before admission (401 aside: 403), batched like the rest. */
const STATUS = {
  name: "cei_status_batch",
  text: `SELECT b.credits AS balance, w.window_start AS win_start, w.request_count AS win_count
         FROM unnest($1::text[]) WITH ORDINALITY AS j(key_id, n)
         LEFT JOIN balances b ON b.key_id = j.key_id LEFT JOIN rate_windows w ON w.key_id = j.key_id ORDER BY j.n`,
};

export class PostgresMeter implements Meter {
  readonly #pool: pg.Pool;
  readonly #now: () => number;
  readonly #lookups: TurnBatches<string, KeyRecord | undefined>;
  readonly #admits: TurnBatches<AdmitRequest, Admission | Busy>;
  readonly #charges: TurnBatches<ChargeRequest, Charge | Busy | Abandoned>;
  readonly #statuses: TurnBatches<string, StatusRow | undefined>;
  readonly #observer: MeterObserver | undefined;
  readonly #reachability: Reachability;
  /** Active keys by the secret as sent (no sha256 for a known secret); see findKey. */
  readonly #keyCache = new Map<string, KeyRecord>();

  /** Connects and applies any migration not yet applied (safe when several readers start at once). */
  static async open(url: string, options: { now?: () => number; warn?: MeterWarn | undefined; observer?: MeterObserver | undefined } = {}): Promise<PostgresMeter> {
    const now = options.now ?? Date.now;
    const warn = options.warn;
    const pool = createPool(
      url, undefined,
      warn === undefined ? undefined : (error) => warn("meter_connection_lost", `cei meter: a PostgreSQL connection closed: ${error.message}`, error),
      warn === undefined ? undefined : (message) => warn("meter_tls_mode", `cei meter: ${message}`),
    );
    try {
      await applyPostgresMigrations(pool, new Date(now()).toISOString());
    } catch (error) {
      await pool.end();
      throw error;
    }
    return new PostgresMeter(pool, now, options.observer);
  }

  private constructor(pool: pg.Pool, now: () => number, observer: MeterObserver | undefined) {
    this.#pool = pool;
    this.#now = now;
    this.#observer = observer;
    this.#reachability = new Reachability(async () => void await pool.query(PROBE), { probeWhileReachable: true });
    this.#lookups = this.#batches((hashes) => this.#lookup(hashes), false);
    this.#admits = this.#batches((keys) => this.#admit(keys), true);
    this.#charges = this.#batches((requests) => this.#charge(requests), true);
    this.#statuses = this.#batches((keyIds) => this.#status(keyIds), false);
  }

  /**
   * Batches of one kind; each statement's outcome tells the metrics (admissions and charges are the
   * meter's transactions, timed as round trips; every request of a failed batch is one failure)
   * and readiness (a statement that came back shows the database reachable; a lost connection not).
   */
  #batches<In, Out>(run: (inputs: In[]) => Promise<Out[]>, timed: boolean): TurnBatches<In, Out> {
    return new TurnBatches(async (inputs) => {
      const started = performance.now();
      let outputs: Out[];
      try {
        outputs = await run(inputs);
      } catch (error) {
        const unreachable = isUnreachable(error);
        if (unreachable) this.#reachability.failed();
        for (let i = 0; i < inputs.length; i++) this.#observer?.failed(unreachable ? "unreachable" : "failed");
        throw error;
      }
      this.#reachability.succeeded();
      if (timed) this.#observer?.batch(inputs.length, (performance.now() - started) / 1000);
      return outputs;
    }, IN_FLIGHT_PER_KIND);
  }

  reachable(): Promise<boolean> {
    return this.#reachability.reachable();
  }

  /**
   * A cached active key, or the key as it stands (`fresh`, or not cached). Only active keys are
   * cached: an unknown secret (a key created since) and a disabled key (enabled since) are read
   * every time. settle() reads state, tier, scopes, expiry and whether the secret is still the
   * key's again in its admission; a cached key's expiry and its secret's grace are checked here
   * against the clock, since they pass with nothing written.
   */
  async findKey(secret: string, options?: { fresh?: boolean }): Promise<KeyRecord | undefined> {
    if (options?.fresh !== true) {
      const cached = this.#keyCache.get(secret);
      if (cached !== undefined) {
        const key = keyAt(cached, this.#now);
        if (key !== undefined) return key;
      }
    }
    const found = await this.#lookups.submit(hashSecret(secret));
    if (found?.state === "active") {
      if (this.#keyCache.size >= KEY_CACHE_LIMIT) this.#keyCache.clear();
      this.#keyCache.set(secret, found);
    } else {
      this.#keyCache.delete(secret);
    }
    return found === undefined ? undefined : keyAt(found, this.#now);
  }

  async status(key: KeyRecord): Promise<MeterStatus> {
    const row = await this.#statuses.submit(key.id);
    return { credits_remaining: row?.balance ?? 0, rate_limit: peekWindow(_window(row), key.tier, this.#now()) };
  }

  /**
   * The admission, the work between two round trips, then the charge (each batched with the other
   * requests of its turn): the operation never runs inside a PostgreSQL transaction, and the charge
   * checks the key and the balance again, as they stand then.
   */
  async settle<T>({ key, operation, requestId, work, abandoned }: SettleRequest<T>): Promise<Settlement<T>> {
    const deadline = performance.now() + METER_WAIT_LIMIT_MS;
    const scope = operation === null ? null : operationPolicy[operation].scope;
    const admission = await this.#untilFree(deadline, () => this.#admits.submit({ key, scope }));
    if (admission.result === "unknown") this.#forget(key);
    if (admission.result !== "admitted") return { outcome: "refused", admission };
    let decision: Decision<T>;
    try {
      decision = work(admission);
    } catch (error) {
      return { outcome: "failed", admission, error };
    }
    const { value, cost } = decision;
    // Only the work of a matched route charges (an unmatched request's work is free).
    const charge = cost === 0 ? undefined : await this.#untilFree(deadline, () => this.#charges.submit({ key, operation: operation!, cost, requestId, abandoned }));
    if (charge === ABANDONED) return { outcome: "abandoned", admission };
    return { outcome: "answered", admission, value, charge };
  }

  /**
   * `ask` until its answer is not busy, pausing between tries; MeterBusyError (nothing written for
   * this request, counted as busy) once the request's deadline has passed.
   */
  async #untilFree<T>(deadline: number, ask: () => Promise<T | Busy>): Promise<T> {
    for (let attempt = 0; ; attempt++) {
      const answer = await ask();
      if (answer !== BUSY) return answer;
      const pause = BUSY_PAUSES_MS[Math.min(attempt, BUSY_PAUSES_MS.length - 1)]!;
      if (performance.now() + pause > deadline) {
        this.#observer?.failed("busy");
        throw new MeterBusyError(`another transaction held the key's rows in the PostgreSQL meter for ${METER_WAIT_LIMIT_MS} ms`);
      }
      await new Promise((resolve) => setTimeout(resolve, pause));
    }
  }

  /** Waits for the batches in flight, then closes every connection. */
  async close(): Promise<void> {
    await Promise.all([this.#lookups.settled(), this.#admits.settled(), this.#charges.settled(), this.#statuses.settled()]);
    await this.#pool.end();
  }

  /** A secret the admission found replaced (its grace over): every cached entry of that key object goes. */
  #forget(key: KeyRecord): void {
    for (const [secret, cached] of this.#keyCache) if (cached === key) this.#keyCache.delete(secret);
  }

  async #lookup(hashes: string[]): Promise<Array<KeyRecord | undefined>> {
    const { rows } = await this.#pool.query<KeyRow>({ ...LOOKUP, values: [[...new Set(hashes)]] });
    const byHash = new Map(rows.map((row) => [row.secret_sha256, row]));
    return hashes.map((hash) => {
      const row = byHash.get(hash);
      return row === undefined ? undefined : keyRecordOf(row, hash, row.valid_until);
    });
  }

  async #status(keyIds: string[]): Promise<Array<StatusRow | undefined>> {
    const { rows } = await this.#pool.query<StatusRow>({ ...STATUS, values: [keyIds] });
    return keyIds.map((_, i) => rows[i]);
  }

  async #admit(requests: AdmitRequest[]): Promise<Array<Admission | Busy>> {
    const now = this.#now();
    const order = _byKeyId(requests.map((request) => request.key.id));
    const sorted = order.map((i) => requests[i]!);
    const { rows } = await this.#pool.query<AdmitRow>({
      ...ADMIT,
      values: [sorted.map((r) => r.key.id), sorted.map((r) => r.key.secretSha256), sorted.map((r) => r.scope), windowStartOf(now), RATE_WINDOW_MS, new Date(now).toISOString()],
    });
    const admissions: Array<Admission | Busy> = [];
    order.forEach((index, position) => {
      const row = rows[position]!;
      const key = requests[index]!.key;
      const credits = row.balance ?? 0;
      if (row.key_state === BUSY) {
        admissions[index] = BUSY;
      } else if (row.key_state !== "active") {
        const tier = row.key_tier === null ? key.tier : tierFromColumn(row.key_tier);
        const result = row.key_state === "expired" || row.key_state === "unknown" ? row.key_state : "forbidden";
        admissions[index] = { result, credits_remaining: credits, rate_limit: peekWindow(_window(row), tier, now) };
      } else {
        const admission = admissionOf(tierFromColumn(row.key_tier!), _window(row)!, credits, now);
        if (admission.result === "admitted" && row.in_scope !== true) admission.result = "out_of_scope";
        admissions[index] = admission;
      }
    });
    return admissions;
  }

  /**
   * The charges of a batch, each request's client asked first whether it is still there (decision
   * 39): one that has gone is not sent. This is the last moment before the commit that a reader
   * can ask; a client that goes while the statement is out is charged (docs/operations.md).
   */
  async #charge(requests: ChargeRequest[]): Promise<Array<Charge | Busy | Abandoned>> {
    const charges: Array<Charge | Busy | Abandoned> = [];
    const live: number[] = [];
    requests.forEach((request, index) => {
      if (request.abandoned?.() === true) charges[index] = ABANDONED;
      else live.push(index);
    });
    if (live.length === 0) return charges;
    const order = _byKeyId(live.map((index) => requests[index]!.key.id)).map((position) => live[position]!);
    const sorted = order.map((i) => requests[i]!);
    const { rows } = await this.#pool.query<ChargeRow>({
      ...CHARGE,
      values: [sorted.map((r) => r.key.id), sorted.map((r) => r.cost), sorted.map((r) => r.operation), sorted.map((r) => r.requestId), new Date(this.#now()).toISOString()],
    });
    order.forEach((index, position) => {
      const row = rows[position]!;
      charges[index] = row.outcome === BUSY ? BUSY : { result: row.outcome, credits_remaining: row.balance ?? 0 };
    });
    return charges;
  }
}


/** Indexes of `ids` in key-id order: every batch locks rows in the same order as every other. */
function _byKeyId(ids: string[]): number[] {
  return ids.map((_, index) => index).sort((a, b) => (ids[a]! < ids[b]! ? -1 : ids[a]! > ids[b]! ? 1 : a - b));
}

function _window(row: StatusRow | undefined): StoredWindow | undefined {
  if (row === undefined || row.win_start === null || row.win_count === null) return undefined;
  return { window_start: row.win_start, request_count: row.win_count };
}
