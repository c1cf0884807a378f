// The meter's writes: every job queued during one event-loop turn runs in one BEGIN IMMEDIATE
// transaction, each job in its own savepoint (a job that throws fails alone). Consecutive jobs that
// can run together (the requests of one key) run as one job, in one savepoint: as if run one after
// another, with one statement per write instead of one per request; if that throws, each runs alone.
// When another process
// holds the write lock, SQLite waits at most BUSY_WAIT_MS (blocking), then the batch is retried
// from a timer with backoff, so the event loop keeps serving answers that need no lock; a job that
// has waited METER_WAIT_LIMIT_MS is rejected with MeterBusyError and has written nothing.
import type { MeterDatabase } from "./database.ts";
import { METER_WAIT_LIMIT_MS, MeterBusyError, type MeterObserver } from "../interface.ts";

/** SQLite's own (blocking) busy wait per attempt. */
const BUSY_WAIT_MS = 2;
const FIRST_RETRY_MS = 2;
const MAX_RETRY_MS = 50;

/**
 * A job: `run` gets the items of the jobs queued one after another with the same `id` (one item, or
 * several), in queue order, and returns each one's value, exactly what running them one after
 * another would give.
 */
export interface Together<I> {
  id: string;
  item: I;
  run: (items: I[]) => unknown[];
}

interface Job {
  together: Together<unknown>;
  resolve: (value: never) => void;
  reject: (error: unknown) => void;
  deadline: number;
}
type Outcome = { ok: true; value: unknown } | { ok: false; error: unknown };

export class WriteQueue {
  readonly #db: MeterDatabase;
  readonly #batch: (jobs: Job[]) => Outcome[];
  readonly #observer: MeterObserver | undefined;
  #pending: Job[] = [];
  /** The first #ripe pending jobs have had a poll phase since they were queued (see #ripen). */
  #ripe = 0;
  #scheduled = false;
  #retryMs = FIRST_RETRY_MS;
  #retryTimer: NodeJS.Timeout | undefined;

  constructor(db: MeterDatabase, observer?: MeterObserver) {
    this.#db = db;
    this.#observer = observer;
    db.pragma(`busy_timeout = ${BUSY_WAIT_MS}`);
    // A nested db.transaction is a SAVEPOINT: rolled back alone when its job throws.
    const group = db.transaction((together: Together<unknown>, items: unknown[]) => {
      const values = together.run(items);
      if (values.length !== items.length) throw new Error(`${together.id}: ${values.length} values for ${items.length} jobs`);
      return values;
    });
    const alone = (job: Job): Outcome => {
      try {
        return { ok: true, value: group(job.together, [job.together.item])[0] };
      } catch (error) {
        return { ok: false, error };
      }
    };
    const all = db.transaction((jobs: Job[]) => {
      const outcomes: Outcome[] = [];
      for (let i = 0; i < jobs.length; ) {
        const together = jobs[i]!.together;
        let end = i + 1;
        while (end < jobs.length && jobs[end]!.together.id === together.id) end++;
        if (end - i > 1) {
          const members = jobs.slice(i, end);
          try {
            for (const value of group(together, members.map((job) => job.together.item))) outcomes.push({ ok: true, value });
          } catch {
            for (const job of members) outcomes.push(alone(job));
          }
        } else {
          outcomes.push(alone(jobs[i]!));
        }
        i = end;
      }
      return outcomes;
    });
    // BEGIN IMMEDIATE: take the write lock up front instead of failing to upgrade a read.
    this.#batch = all.immediate;
  }

  /** Runs as one with the jobs queued right before and after it that have the same id (see Together). */
  enqueue<T, I>(together: Together<I>): Promise<T> {
    return new Promise<T>((resolve, reject) => {
      this.#pending.push({
        together: together as Together<unknown>,
        resolve: resolve as (value: never) => void, reject, deadline: performance.now() + METER_WAIT_LIMIT_MS,
      });
      if (!this.#scheduled && this.#retryTimer === undefined) {
        this.#scheduled = true;
        setImmediate(this.#ripen);
      }
    });
  }

  /** For close(): one last attempt for whatever is queued; jobs that cannot run are rejected. */
  drain(): void {
    clearTimeout(this.#retryTimer);
    this.#retryTimer = undefined;
    this.#ripe = this.#pending.length;
    this.#flush();
    for (const job of this.#pending.splice(0)) this.#reject(job, new MeterBusyError());
  }

  /**
   * A job runs only after a poll phase of the event loop has passed since it was queued: that phase
   * reads what the clients sent meanwhile, a close included, which a socket cannot show sooner (a
   * request's bytes and its client's FIN are read in separate turns). So a request whose client
   * had closed before the request was even read (a reader stopped, then resumed) is seen gone before
   * its charge commits (decision 39). Here, in a check phase, the jobs queued so far are marked; the
   * next check phase, after the next poll, runs them.
   */
  readonly #ripen = (): void => {
    this.#ripe = this.#pending.length;
    setImmediate(this.#flush);
  };

  readonly #flush = (): void => {
    this.#scheduled = false;
    this.#retryTimer = undefined;
    const batch = this.#pending.splice(0, this.#ripe);
    this.#ripe = 0;
    if (batch.length > 0 && !this.#run(batch)) return;
    // Jobs queued since the batch was marked are ripe at the next check phase: a poll comes first.
    if (this.#pending.length > 0 && this.#retryTimer === undefined && !this.#scheduled) {
      this.#scheduled = true;
      this.#ripe = this.#pending.length;
      setImmediate(this.#flush);
    }
  };

  /** Runs a batch; false when the file was locked and the batch waits for a retry from a timer. */
  #run(batch: Job[]): boolean {
    let outcomes: Outcome[];
    const started = performance.now();
    try {
      outcomes = this.#batch(batch);
    } catch (error) {
      if (!_isBusy(error)) {
        for (const job of batch) this.#reject(job, error);
        return true;
      }
      this.#retryLater(batch);
      return false;
    }
    this.#observer?.batch(batch.length, (performance.now() - started) / 1000);
    this.#retryMs = FIRST_RETRY_MS;
    batch.forEach((job, index) => {
      const outcome = outcomes[index]!;
      if (outcome.ok) job.resolve(outcome.value as never);
      else this.#reject(job, outcome.error);
    });
    return true;
  }

  #reject(job: Job, error: unknown): void {
    this.#observer?.failed(error instanceof MeterBusyError ? "busy" : "failed");
    job.reject(error);
  }

  #retryLater(batch: Job[]): void {
    const now = performance.now();
    const waiting = batch.filter((job) => {
      if (job.deadline > now) return true;
      this.#reject(job, new MeterBusyError());
      return false;
    });
    this.#pending = [...waiting, ...this.#pending];
    // A batch waiting for the lock is retried whole, with whatever came in before the retry.
    this.#ripe = this.#pending.length;
    if (this.#pending.length === 0 || !this.#db.open) return;
    this.#retryTimer = setTimeout(this.#flush, this.#retryMs);
    this.#retryMs = Math.min(MAX_RETRY_MS, this.#retryMs * 2);
  }
}

function _isBusy(error: unknown): boolean {
  const code = (error as { code?: unknown }).code;
  return code === "SQLITE_BUSY" || code === "SQLITE_BUSY_SNAPSHOT";
}
