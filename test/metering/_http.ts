// An in-process server for the metering tests, reached over real HTTP: the snapshot compiled from
// fixtures/valid, a meter of either backend (a SQLite file in a temp dir, or a fresh PostgreSQL
// database), an injected clock shared by the app and the meter, the app on an ephemeral port, keys
// made through the key store as `cei keys` makes them, and a second connection that reads the
// meter as another process would (balances, ledger, rate windows).
import { createApp } from "../../server/app.ts";
import { startServer, type RunningServer } from "../../server/listen.ts";
import type { Logger } from "../../server/log.ts";
import type { Meter } from "../../server/meter/interface.ts";
import { openKeyStore, openMeter } from "../../server/meter/open.ts";
import type { KeyStore } from "../../server/meter/key-store.ts";
import type { Scope, Tier } from "../../server/policy.ts";
import { Serving } from "../../server/serving.ts";
import { FIXTURE_X_SECRET } from "../_support/fixtures.ts";
import { newMeterLocation, type MeterBackend } from "../_support/meter-backends.ts";
import { FIXTURE_NOW, fixtureSnapshot } from "../_support/server.ts";
import { viewMeter, type MeterView } from "../_support/meter-view.ts";

export { FIXTURE_NOW, fixtureSnapshot, viewMeter };

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

export interface MeteredServer {
  url: string;
  backend: MeterBackend;
  /** The meter file's path, or the PostgreSQL database's URL: what `--meter` takes. */
  meterLocation: string;
  /** Set `clock.now` to move time for the app and the meter alike. */
  clock: { now: number };
  newKey(options?: { tier?: Tier; credits?: number; scopes?: Scope[] }): Promise<{ id: string; key: string }>;
  disableKey(id: string): Promise<void>;
  enableKey(id: string): Promise<void>;
  revokeKey(id: string): Promise<void>;
  setScopes(id: string, scopes: Scope[]): Promise<void>;
  /** The key store itself, as `cei keys` uses it (the clock is `clock.now`). */
  keys: KeyStore;
  call(method: string, path: string, options: RequestOptions): Promise<HttpResult>;
  view: MeterView;
  close(): Promise<void>;
}

export interface MeteredServerOptions {
  releaseTrendingProjects?: boolean;
  backend?: MeterBackend;
  /** The app's request log. */
  logger?: Logger;
  /** What the app is given as its meter: the real one, or one that watches it. */
  wrapMeter?: (meter: Meter) => Meter;
}

export async function startMeteredServer(options: MeteredServerOptions = {}): Promise<MeteredServer> {
  const backend = options.backend ?? "sqlite";
  const meterLocation = await newMeterLocation(backend);
  const clock = { now: FIXTURE_NOW };
  const now = () => clock.now;
  const meter = await openMeter(meterLocation, { now, synchronous: "NORMAL" });
  const keys = await openKeyStore(meterLocation, { mustExist: false, now });
  const serving = await Serving.open(await fixtureSnapshot(), { now, log: () => undefined, xSecret: FIXTURE_X_SECRET });
  const app = createApp({
    serving, meter: options.wrapMeter?.(meter) ?? meter, now, releaseTrendingProjects: options.releaseTrendingProjects, checkResponses: true,
    ...(options.logger === undefined ? {} : { logger: options.logger }),
  });
  // These tests send up to 75 requests at once from one address: the per-address connection cap
  // is not their subject (test/server/address-limits.test.ts is), so it is set above that.
  const running: RunningServer = await startServer(app, { port: 0, host: "127.0.0.1", maxConnectionsPerAddress: 1_000 });
  const view = viewMeter(meterLocation);
  return {
    url: running.url,
    backend,
    meterLocation,
    clock,
    async newKey({ tier = "pro", credits = 1_000, scopes } = {}) {
      const created = await keys.create({ tier, credits, scopes }, clock.now);
      return { id: created.id, key: created.key };
    },
    disableKey: async (id) => void await keys.disable(id, clock.now),
    enableKey: async (id) => void await keys.enable(id, clock.now),
    revokeKey: async (id) => void await keys.revoke(id, clock.now),
    setScopes: async (id, scopes) => void await keys.setScopes(id, scopes, clock.now),
    keys,
    call: (method, path, requestOptions) => request(running.url, method, path, requestOptions),
    view,
    async close() {
      await running.close();
      await view.close();
      await keys.close();
      await meter.close();
      serving.close();
    },
  };
}
