// No unbilled response across machines: two `cei serve` readers share one PostgreSQL meter, and
// in each of 4 rounds both are loaded and each is killed with SIGKILL at another moment. After
// every round, every 200 any client received has its ledger row (matched by meta.request_id) and
// balance + charges still equal the opening credits; the reader killed second kept answering 200s
// while the first was already dead.
import { setTimeout as sleep } from "node:timers/promises";
import { beforeAll, expect, it } from "vitest";
import { openKeyStore } from "../../server/meter/open.ts";
import { newPostgresDatabase } from "../_support/meter-backends.ts";
import { fixtureSnapshot, viewMeter } from "./_http.ts";
import { startLoad } from "./_load.ts";
import { startCeiServe } from "../_support/processes.ts";

const CREDITS = 1_000_000;
const CONCURRENCY = 12;
/** ms of load after each reader's first 200 before its kill: fixed, so every run is the same test. */
const KILL_DELAYS_MS: ReadonlyArray<readonly [number, number]> = [[0, 120], [60, 10], [150, 40], [25, 200]];

let meter: string;
let key: { id: string; key: string };
beforeAll(async () => {
  meter = await newPostgresDatabase();
  const keys = await openKeyStore(meter, { mustExist: false });
  key = await keys.create({ tier: "internal", credits: CREDITS }, Date.now());
  await keys.close();
});

it("after each of 4 rounds of SIGKILLs to two readers under load: every answered 200 in the ledger, credits reconcile", async () => {
  const snapshot = await fixtureSnapshot();
  const view = viewMeter(meter);
  const answered = new Set<string>();
  try {
    for (const [round, [firstDelay, secondDelay]] of KILL_DELAYS_MS.entries()) {
      const readers = await Promise.all([startCeiServe(snapshot, meter), startCeiServe(snapshot, meter)]);
      const loads = readers.map((reader) => startLoad(reader.url, key.key, CONCURRENCY));
      try {
        await Promise.all(loads.map((load) => load.next(200)));
        await sleep(firstDelay);
        await readers[0]!.stop("SIGKILL");
        await loads[0]!.lost();
        // The other reader goes on charging on the same database while the first is dead.
        await loads[1]!.next(200, 20);
        await sleep(secondDelay);
        await readers[1]!.stop("SIGKILL");
        await loads[1]!.lost();
      } finally {
        await Promise.all(readers.map((reader) => reader.stop("SIGKILL")));
        await Promise.all(loads.map((load) => load.stop()));
      }
      for (const load of loads) {
        expect(load.answers.every((answer) => answer.status === 200), `round ${round}`).toBe(true);
        for (const answer of load.answers) answered.add(answer.body.meta.request_id);
      }
      const charges = (await view.ledger(key.id)).filter((row) => row.kind === "charge");
      const ledgerIds = new Set(charges.map((row) => row.request_id));
      expect([...answered].filter((id) => !ledgerIds.has(id)), `round ${round}: 200s without a ledger row`).toEqual([]);
      // A charge may be committed for a request whose answer the kill swallowed, never the reverse.
      expect(charges.length).toBeGreaterThanOrEqual(answered.size);
      const spent = charges.reduce((sum, row) => sum - row.delta, 0);
      expect((await view.credits(key.id)) + spent, `round ${round}`).toBe(CREDITS);
    }
  } finally {
    await view.close();
  }
}, 90_000);
