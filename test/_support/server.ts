// The server under test: a snapshot compiled from fixtures/valid by the real compiler, a real
// meter file in a temp dir, keys made with the meter's key functions, and an injected clock that
// starts at FIXTURE_COMPILED_AT. `startTestServer` puts an app on an ephemeral port.
import { join } from "node:path";
import type { H3 } from "h3";
import { createApp } from "../../server/app.ts";
import type { Logger } from "../../server/log.ts";
import type { Metrics } from "../../server/metrics.ts";
import { servingLog } from "../../server/observe.ts";
import { REQUEST_ID_PATTERN } from "../../server/envelope.ts";
import { startServer, type RunningServer } from "../../server/listen.ts";
import { openMeterDatabase } from "../../server/meter/sqlite/database.ts";
import { createKey, disableKey, enableKey, revokeKey } from "../../server/meter/sqlite/keys.ts";
import { SqliteMeter } from "../../server/meter/sqlite/meter.ts";
import type { Scope, Tier } from "../../server/policy.ts";
import { Serving } from "../../server/serving.ts";
import { compileFixture, FIXTURE_COMPILED_AT, FIXTURE_X_SECRET } from "./fixtures.ts";
import { testTempDir } from "./temp.ts";
import { openApiContract } from "./openapi.ts";

export const FIXTURE_NOW = FIXTURE_COMPILED_AT.getTime();
export const REQUEST_ID = REQUEST_ID_PATTERN;

export interface CallResult {
  status: number;
  headers: Headers;
  /** Parsed JSON body (null for HEAD). */
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  body: any;
  text: string;
}

export interface CallOptions {
  key?: string | null;
  body?: unknown;
  headers?: Record<string, string>;
}

export interface TestService {
  app: H3;
  meter: SqliteMeter;
  meterFile: string;
  /** The served snapshot (fixtures/valid unless told otherwise); swap it by renaming over `serving.file`. */
  serving: Serving;
  /** The injected clock: set `clock.now` to move time for the app and the meter alike. */
  clock: { now: number };
  /** A fresh key (own balance and rate window); all scopes unless named. */
  newKey(options?: { tier?: Tier; credits?: number; scopes?: Scope[] }): { id: string; key: string };
  disableKey(id: string): void;
  enableKey(id: string): void;
  revokeKey(id: string): void;
  call(method: string, path: string, options?: CallOptions): Promise<CallResult>;
  close(): void;
}

const compiled = new Map<string, Promise<string>>();

/** fixtures/<name> (default valid) compiled once per test file (each file runs in its own worker). */
export function fixtureSnapshot(name = "valid"): Promise<string> {
  let snapshot = compiled.get(name);
  if (snapshot === undefined) compiled.set(name, (snapshot = compileFixture(name)));
  return snapshot;
}

export interface TestServiceOptions {
  /** The fixtures/ folder served (default valid). */
  fixture?: string;
  releaseTrendingProjects?: boolean;
  /** null serves without the compile secret (no handle search). */
  xSecret?: string | null;
  /** The app's logger; also given serving's lines (swaps, refusals, stale warnings). */
  logger?: Logger;
  /** Counted by the app, the meter and serving, as `cei serve --metrics-port` does. */
  metrics?: Metrics;
  /** The snapshot to serve; default: fixtures/valid, compiled once per test file. */
  snapshotFile?: string;
}

export async function createTestService(options: TestServiceOptions = {}): Promise<TestService> {
  const snapshotFile = options.snapshotFile ?? await fixtureSnapshot(options.fixture);
  const meterFile = join(testTempDir("cei-meter-"), "meter.db");
  const clock = { now: FIXTURE_NOW };
  const now = () => clock.now;
  const admin = openMeterDatabase(meterFile, { now });
  const { logger, metrics } = options;
  const meter = SqliteMeter.open(meterFile, { now, synchronous: "NORMAL", observer: metrics?.meterObserver });
  const xSecret = options.xSecret === null ? {} : { xSecret: options.xSecret ?? FIXTURE_X_SECRET };
  const log = logger === undefined ? () => undefined : servingLog(logger, metrics);
  const serving = await Serving.open(snapshotFile, { now, log, ...xSecret });
  metrics?.watchServing(serving, now);
  const app = createApp({ serving, meter, now, releaseTrendingProjects: options.releaseTrendingProjects, checkResponses: true, logger, metrics });
  const contract = openApiContract(options.releaseTrendingProjects ?? false);
  let defaultKey: string | undefined;

  const service: TestService = {
    app, meter, meterFile, serving, clock,
    newKey({ tier = "pro", credits = 1_000, scopes } = {}) {
      const created = createKey(admin, { tier, credits, scopes }, clock.now);
      return { id: created.id, key: created.key };
    },
    disableKey: (id) => void disableKey(admin, id, clock.now),
    enableKey: (id) => void enableKey(admin, id, clock.now),
    revokeKey: (id) => void revokeKey(admin, id, clock.now),
    async call(method, path, { key, body, headers = {} } = {}) {
      const auth: Record<string, string> = key === null ? {} : { authorization: `Bearer ${key ?? (defaultKey ??= service.newKey().key)}` };
      const init: RequestInit = { method, headers: { ...auth, ...headers } };
      if (body !== undefined) {
        init.body = typeof body === "string" ? body : JSON.stringify(body);
        if (!Object.keys(headers).some((h) => h.toLowerCase() === "content-type")) {
          init.headers = { ...(init.headers as Record<string, string>), "content-type": "application/json" };
        }
      }
      const response = await app.request(path, init);
      const text = await response.text();
      // Every answer of every suite that calls through here must be one the OpenAPI document describes.
      contract.expectDescribed(method, path, { status: response.status, headers: response.headers, text });
      return { status: response.status, headers: response.headers, text, body: text === "" ? null : JSON.parse(text) };
    },
    close() {
      meter.close();
      admin.close();
      serving.close();
    },
  };
  return service;
}

/**
 * Listens on 127.0.0.1 and an ephemeral port; `close()` also ends keep-alive connections. Given the
 * service's `serving`, the listener's own answers name its snapshot too, as `cei serve`'s do.
 */
export function startTestServer(app: H3, serving?: Serving): Promise<RunningServer> {
  return startServer(app, { port: 0, host: "127.0.0.1", ...(serving === undefined ? {} : { snapshot: () => serving.contentHash }) });
}
