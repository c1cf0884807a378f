// An in-process server for the metering tests, reached over real HTTP: the snapshot compiled from
// fixtures/valid, a meter file in a temp dir, an injected clock shared by the app and the meter,
// the app on an ephemeral port, and a second connection that reads the meter file as another
// process would (balances, ledger, rate windows).
import Database from "better-sqlite3";
import { startServer, type RunningServer } from "../../server/listen.ts";
import type { Scope, Tier } from "../../server/policy.ts";
import { createTestService, FIXTURE_NOW, fixtureSnapshot } from "../_support/server.ts";

export { FIXTURE_NOW, fixtureSnapshot };

export interface HttpResult {
  status: number;
  headers: Headers;
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  body: any;
}

export interface RequestOptions {
  /** The bearer secret; `null` sends no Authorization header. */
  key: string | null;
  /** JSON-encoded unless it is a string, which is sent as is (for malformed bodies). */
  body?: unknown;
  /** Sent as is, replacing the bearer header when it names `authorization`. */
  headers?: Record<string, string>;
}

export async function request(baseUrl: string, method: string, path: string, options: RequestOptions): Promise<HttpResult> {
  const headers: Record<string, string> = options.key === null ? {} : { authorization: `Bearer ${options.key}` };
  Object.assign(headers, options.headers);
  const init: RequestInit = { method, headers };
  if (options.body !== undefined) {
    init.body = typeof options.body === "string" ? options.body : JSON.stringify(options.body);
    headers["content-type"] = "application/json";
  }
  const response = await fetch(baseUrl + path, init);
  const text = await response.text();
  return { status: response.status, headers: response.headers, body: JSON.parse(text) };
}

export interface LedgerRow { key_id: string; kind: string; operation: string | null; delta: number; request_id: string | null }

/** The meter file read through its own connection. */
export interface MeterView {
  credits(keyId: string): number;
  ledger(keyId?: string): LedgerRow[];
  /** Every balance, ledger row and rate window: equal before and after means nothing was written. */
  state(): { balances: unknown[]; ledger: unknown[]; windows: unknown[] };
  close(): void;
}

export function viewMeter(file: string): MeterView {
  const db = new Database(file, { fileMustExist: true });
  const ledger = db.prepare<[string | null, string | null], LedgerRow>(
    "SELECT key_id, kind, operation, delta, request_id FROM ledger WHERE ? IS NULL OR key_id = ? ORDER BY seq",
  );
  return {
    credits: (keyId) => db.prepare<[string], number>("SELECT credits FROM balances WHERE key_id = ?").pluck().get(keyId)!,
    ledger: (keyId) => ledger.all(keyId ?? null, keyId ?? null),
    state: () => ({
      balances: db.prepare("SELECT * FROM balances ORDER BY key_id").all(),
      ledger: db.prepare("SELECT * FROM ledger ORDER BY seq").all(),
      windows: db.prepare("SELECT * FROM rate_windows ORDER BY key_id").all(),
    }),
    close: () => db.close(),
  };
}

export interface MeteredServer {
  url: string;
  meterFile: string;
  /** Set `clock.now` to move time for the app and the meter alike. */
  clock: { now: number };
  newKey(options?: { tier?: Tier; credits?: number; scopes?: Scope[] }): { id: string; key: string };
  disableKey(id: string): void;
  enableKey(id: string): void;
  revokeKey(id: string): void;
  call(method: string, path: string, options: RequestOptions): Promise<HttpResult>;
  view: MeterView;
  close(): Promise<void>;
}

export async function startMeteredServer(options: { releaseTrendingProjects?: boolean } = {}): Promise<MeteredServer> {
  const service = await createTestService(options);
  const running: RunningServer = await startServer(service.app, { port: 0, host: "127.0.0.1" });
  const view = viewMeter(service.meterFile);
  return {
    url: running.url,
    meterFile: service.meterFile,
    clock: service.clock,
    newKey: service.newKey,
    disableKey: service.disableKey,
    enableKey: service.enableKey,
    revokeKey: service.revokeKey,
    call: (method, path, requestOptions) => request(running.url, method, path, requestOptions),
    view,
    async close() {
      await running.close();
      view.close();
      service.close();
    },
  };
}
