// The meter connection's prepared statements, in one place so that meter.ts reads as the steps.
import type { Statement } from "better-sqlite3";
import type { MeterDatabase } from "./database.ts";
import type { KeyState } from "../interface.ts";

interface KeyRow { id: string; tier: string; scopes: string; state: KeyState; expires_at: string | null }
/** A key found by a secret; `valid_until` when the secret is one a reroll replaced. */
export type KeyLookupRow = KeyRow & { valid_until?: string };
/** A key as its admission reads it, as it stands: state, expiry and refill schedule as well. */
export interface KeyStateRow { state: KeyState; tier: string; scopes: string; expires_at: string | null; refill_every: string | null; refill_to: number | null }
interface WindowRow { window_start: number; request_count: number }

/** Ledger rows per INSERT at most (recordCharges). */
export const RECORD_CHARGES_MAX = 16;
const RECORD_CHARGES = "INSERT INTO ledger (key_id, kind, operation, delta, request_id, created_at) VALUES";
const CHARGE_ROW = "(?, 'charge', ?, ?, ?, ?)";

export class MeterStatements {
  readonly keyBySecretHash: Statement<[string], KeyRow>;
  /** A secret replaced by a reroll, with the end of its grace (only asked when no key has the secret). */
  readonly keyByRetiredSecret: Statement<[string], KeyRow & { valid_until: string }>;
  readonly dataVersion: Statement<[], number>;
  readonly keyStateById: Statement<[string], KeyStateRow>;
  readonly balanceOf: Statement<[string], number>;
  readonly windowOf: Statement<[string], WindowRow>;
  /** Counts `requests` (one, or the admissions of one key in one batch) in the key's window. */
  readonly countRequests: Statement<[string, number, number], WindowRow>;
  readonly chargeCredits: Statement<[number, string, number], number>;
  readonly #db: MeterDatabase;
  readonly #recordCharges: Array<Statement<unknown[]>> = [];

  constructor(db: MeterDatabase, windowMs: number) {
    this.keyBySecretHash = db.prepare("SELECT id, tier, scopes, state, expires_at FROM keys WHERE secret_sha256 = ?");
    this.keyByRetiredSecret = db.prepare(`SELECT k.id, k.tier, k.scopes, k.state, k.expires_at, r.valid_until
      FROM retired_secrets r JOIN keys k ON k.id = r.key_id WHERE r.secret_sha256 = ?`);
    this.dataVersion = db.prepare<[], number>("PRAGMA data_version").pluck();
    this.keyStateById = db.prepare("SELECT state, tier, scopes, expires_at, refill_every, refill_to FROM keys WHERE id = ?");
    this.balanceOf = db.prepare<[string], number>("SELECT credits FROM balances WHERE key_id = ?").pluck();
    this.windowOf = db.prepare("SELECT window_start, request_count FROM rate_windows WHERE key_id = ?");
    // A process whose clock lags never moves a window backwards: it counts in the newer one. A
    // stored window more than one window ahead of this clock (a clock that jumped forward) is
    // taken as the current window, so one wrong clock cannot lock a key out for longer than a window.
    this.countRequests = db.prepare(`
      INSERT INTO rate_windows (key_id, window_start, request_count) VALUES (?, ?, ?)
      ON CONFLICT (key_id) DO UPDATE SET
        request_count = CASE WHEN excluded.window_start > window_start THEN excluded.request_count
                             ELSE request_count + excluded.request_count END,
        window_start = CASE WHEN window_start > excluded.window_start + ${windowMs} THEN excluded.window_start
                            ELSE max(window_start, excluded.window_start) END
      RETURNING window_start, request_count`);
    this.chargeCredits = db
      .prepare<[number, string, number], number>(
        "UPDATE balances SET credits = credits - ? WHERE key_id = ? AND credits >= ? RETURNING credits",
      )
      .pluck();
    this.#db = db;
  }

  /** INSERT of `rows` ledger rows (1..RECORD_CHARGES_MAX), five values each (key_id, operation, delta, request_id, created_at): half the cost per row of one INSERT each. */
  recordCharges(rows: number): Statement<unknown[]> {
    return (this.#recordCharges[rows] ??= this.#db.prepare(`${RECORD_CHARGES} ${Array.from({ length: rows }, () => CHARGE_ROW).join(", ")}`));
  }
}

