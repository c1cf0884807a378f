// PostgreSQL restarted under load: two `cei serve` readers keep running while their meter's server
// stops (fast shutdown: open transactions rolled back) and starts again. While it is down every
// metered request is answered 500 INTERNAL_ERROR and nothing is charged; once it is back, both
// readers answer 200 again by themselves, without a restart. Afterwards the ledger holds exactly
// one charge per 200 and none for a 500. This file runs a PostgreSQL of its own, since it stops it.
import { afterAll, beforeAll, expect, inject, it } from "vitest";
import { openKeyStore } from "../../server/meter/open.ts";
import { startPostgres, type TestPostgres } from "../_support/postgres.ts";
import { fixtureSnapshot, viewMeter } from "./_http.ts";
import { startLoad } from "./_load.ts";
import { startCeiServe } from "../_support/processes.ts";

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
  const snapshot = await fixtureSnapshot();
  const readers = await Promise.all([startCeiServe(snapshot, meter), startCeiServe(snapshot, meter)]);
  const loads = readers.map((reader) => startLoad(reader.url, key.key, CONCURRENCY));
  try {
    await Promise.all(loads.map((load) => load.next(200, 20)));
    await postgres.stop();
    await Promise.all(loads.map((load) => load.next(500, 10)));
    await postgres.start();
    await Promise.all(loads.map((load) => load.next(200, 20)));
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
