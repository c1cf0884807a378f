// Scheduled refills on the SQLite file (decision 37), applied lazily: when a key's balance is read
// in a period it has not been refilled for, inside the transaction that reads it. Every writer of
// the file holds its write lock (BEGIN IMMEDIATE) for that transaction, so however many processes
// read the key, one of them refills it and the others find the period done: exactly once.
import type { Statement } from "better-sqlite3";
import type { MeterDatabase } from "./database.ts";
import type { RefillEvery } from "../key-store.ts";
import { refillPeriod } from "../lifecycle.ts";

export class SqliteRefills {
  readonly #balance: Statement<[string], { credits: number; refilled_for: string | null }>;
  readonly #topUp: Statement<[number, string, string]>;
  readonly #ledger: Statement<[string, number, string]>;

  constructor(db: MeterDatabase) {
    this.#balance = db.prepare("SELECT credits, refilled_for FROM balances WHERE key_id = ?");
    this.#topUp = db.prepare("UPDATE balances SET credits = max(credits, ?), refilled_for = ? WHERE key_id = ?");
    this.#ledger = db.prepare("INSERT INTO ledger (key_id, kind, operation, delta, request_id, created_at) VALUES (?, 'refill', NULL, ?, NULL, ?)");
  }

  /** Tops the balance up to `to` if the period `now` falls in has not been refilled yet; a ledger row for what it adds. */
  applyDue(keyId: string, every: RefillEvery, to: number, now: number): void {
    const period = refillPeriod(every, now);
    const balance = this.#balance.get(keyId);
    if (balance === undefined || (balance.refilled_for !== null && balance.refilled_for >= period)) return;
    this.#topUp.run(to, period, keyId);
    if (balance.credits < to) this.#ledger.run(keyId, to - balance.credits, new Date(now).toISOString());
  }
}
