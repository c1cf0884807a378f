// PostgreSQL restarted under load: two `cei serve` readers keep running while their meter's server
// stops (fast shutdown: open transactions rolled back) and starts again. While it is down every
// metered request is answered 500 INTERNAL_ERROR and nothing is charged, each reader's /readyz is
// 503 `meter_unavailable` (decision 40) and its metrics count the failures; once it is back, both
// readers answer 200 again by themselves, without a restart, and /readyz is 200. Afterwards the
// ledger holds exactly one charge per 200 and none for a 500. This file runs a PostgreSQL of its
// own, since it stops it.
import { afterAll, beforeAll, expect, inject, it } from "vitest";
import { openKeyStore } from "../../server/meter/open.ts";
import { startPostgres, type TestPostgres } from "../_support/postgres.ts";
import { compileSample, SAMPLE_PATHS } from "../_support/fixtures.ts";
import { viewMeter } from "./_http.ts";
import { startLoad } from "./_load.ts";
import { metricsUrlOf, scrapeSample, startCeiServe } from "../_support/processes.ts";

const CREDITS = 1_000_000;
const CONCURRENCY = 8;

let postgres: TestPostgres;
let meter: string;
beforeAll(async () => {
  postgres = await startPostgres(inject("systemTmpDir"));
  meter = postgres.adminUrl;
}, 60_000);
afterAll(() => postgres?.remove());

it("while PostgreSQL is down the readers answer 500 and charge nothing; after it restarts they recover by themselves", async () => {
  const keys = await openKeyStore(meter, { mustExist: false });
  const key = await keys.create({ tier: "internal", credits: CREDITS }, Date.now());
  await keys.close();
  // Fresh on the real clock, which the child processes read: /readyz is then 200 while the meter is up.
  const snapshot = await compileSample(new Date());
  const readers = await Promise.all([0, 1].map(() => startCeiServe(snapshot, meter, ["--metrics-port", "0"])));
  const loads = readers.map((reader) => startLoad(reader.url, key.key, CONCURRENCY, 20, SAMPLE_PATHS));
  const readiness = () => Promise.all(readers.map(async (reader) => {
    const res = await fetch(`${reader.url}/readyz`);
    return { status: res.status, body: await res.json() as { status: string; reason?: string } };
  }));
  const meterMetrics = () => Promise.all(readers.map(async (reader) => ({
    unreachable: await scrapeSample(metricsUrlOf(reader), 'cei_meter_errors_total{kind="unreachable"}'),
    batches: await scrapeSample(metricsUrlOf(reader), "cei_meter_batch_jobs_count"),
  })));
  try {
    await Promise.all(loads.map((load) => load.next(200, 20)));
    expect((await readiness()).map((r) => r.status)).toEqual([200, 200]);
    const before = await meterMetrics();
    for (const reader of before) expect(reader).toMatchObject({ unreachable: 0, batches: expect.any(Number) });
    for (const reader of before) expect(reader.batches).toBeGreaterThan(0);
    await postgres.stop();
    await Promise.all(loads.map((load) => load.next(500, 10)));
    const down = await readiness();
    expect(down.map((r) => [r.status, r.body.status, r.body.reason])).toEqual([[503, "not_ready", "meter_unavailable"], [503, "not_ready", "meter_unavailable"]]);
    for (const reader of await meterMetrics()) expect(reader.unreachable).toBeGreaterThanOrEqual(10);
    await postgres.start();
    await Promise.all(loads.map((load) => load.next(200, 20)));
    expect((await readiness()).map((r) => r.status)).toEqual([200, 200]);
    const after = await meterMetrics();
    after.forEach((reader, index) => expect(reader.batches).toBeGreaterThan(before[index]!.batches));
  } finally {
    await Promise.all(loads.map((load) => load.stop()));
    await Promise.all(readers.map((reader) => reader.stop("SIGTERM")));
  }

  for (const [index, load] of loads.entries()) {
    const statuses = load.answers.map((answer) => answer.status);
    expect(new Set(statuses), `reader ${index}`).toEqual(new Set([200, 500]));
    // Recovered: the answers after the last 500 are 200s, and there are some.
    expect(statuses.slice(statuses.lastIndexOf(500) + 1).length, `reader ${index}`).toBeGreaterThanOrEqual(20);
    for (const answer of load.answers.filter((a) => a.status === 500)) {
      expect(answer.body).toMatchObject({ error: { code: "INTERNAL_ERROR" }, meta: { credits_used: 0 } });
    }
  }
  const ok = loads.flatMap((load) => load.answers.filter((answer) => answer.status === 200));
  const view = viewMeter(meter);
  try {
    const charges = (await view.ledger(key.id)).filter((row) => row.kind === "charge");
    expect(new Set(charges.map((row) => row.request_id))).toEqual(new Set(ok.map((answer) => answer.body.meta.request_id)));
    expect(charges).toHaveLength(ok.length);
    const spent = charges.reduce((sum, row) => sum - row.delta, 0);
    expect(ok.reduce((sum, answer) => sum + answer.body.meta.credits_used, 0)).toBe(spent);
    expect(await view.credits(key.id)).toBe(CREDITS - spent);
  } finally {
    await view.close();
  }
}, 60_000);
