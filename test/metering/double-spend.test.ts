// No double spend over HTTP across processes: two `cei serve` processes share one meter (a SQLite
// file, or PostgreSQL) and answer 1,000 concurrent requests of one key that can pay for 200. Exactly 200 are answered with
// data, every other answer is 402, the balance ends at 0 and the ledger holds exactly the charges
// that were answered. The children use the real clock, so the operation is get_project, which has
// no freshness bound; the tier is internal, whose rate limit does not trip.
import { afterEach, expect, it } from "vitest";
import { openKeyStore } from "../../server/meter/open.ts";
import { meterBackends, newMeterLocation } from "../_support/meter-backends.ts";
import { fixtureSnapshot, viewMeter } from "./_http.ts";
import { keepAliveClient, startCeiServe, type Answer, type ChildServer } from "../_support/processes.ts";

const CREDITS = 200;
const REQUESTS = 1_000;
const PATH = "/v1/projects/aurora-swap"; // get_project: 1 credit

const cleanup: Array<() => Promise<void> | void> = [];
afterEach(async () => {
  for (const step of cleanup.splice(0).reverse()) await step();
});

it.each(meterBackends)("%s meter: 1,000 concurrent requests over two processes for 200 credits: exactly 200 charged, the rest 402", async (backend) => {
  const snapshot = await fixtureSnapshot();
  const meterFile = await newMeterLocation(backend);
  const admin = await openKeyStore(meterFile, { mustExist: false });
  const { id, key } = await admin.create({ tier: "internal", credits: CREDITS, scopes: ["projects"] }, Date.now());
  const warmUp = await admin.create({ tier: "internal", credits: 1_000, scopes: ["projects"] }, Date.now());
  await admin.close();

  const servers: ChildServer[] = await Promise.all([startCeiServe(snapshot, meterFile), startCeiServe(snapshot, meterFile)]);
  cleanup.push(() => Promise.all(servers.map((server) => server.stop("SIGTERM"))).then(() => undefined));
  const clients = servers.map((server) => keepAliveClient(server.url, 16));
  cleanup.push(() => clients.forEach((client) => client.close()));

  // Open the connections and warm both processes up first, so that neither starts the race late.
  await Promise.all(clients.map((client) => Promise.all(Array.from({ length: 100 }, () => client.get(PATH, warmUp.key)))));

  // All 1,000 are issued at once, alternating between the processes; each client keeps 16 in flight,
  // so that every process settles many small batches and the two interleave on the meter's lock.
  const answers: Array<Answer & { server: number }> = await Promise.all(
    Array.from({ length: REQUESTS }, (_, i) => clients[i % 2]!.get(PATH, key).then((answer) => ({ ...answer, server: i % 2 }))),
  );

  const charged = answers.filter((answer) => answer.status === 200);
  expect(charged).toHaveLength(CREDITS);
  expect(answers.filter((answer) => answer.status === 402)).toHaveLength(REQUESTS - CREDITS);
  for (const answer of charged) expect(answer.body.meta).toMatchObject({ credits_used: 1 });
  for (const answer of answers.filter((a) => a.status === 402)) {
    expect(answer.body).toMatchObject({ error: { code: "INSUFFICIENT_CREDITS" }, meta: { credits_used: 0, credits_remaining: 0 } });
  }
  // Each balance a 200 reports is one that no other 200 reported.
  expect(new Set(charged.map((answer) => answer.body.meta.credits_remaining)).size).toBe(CREDITS);
  // Both processes answered their half: no request was lost or left waiting.
  expect([0, 1].map((s) => answers.filter((answer) => answer.server === s).length)).toEqual([REQUESTS / 2, REQUESTS / 2]);
  expect(new Set(answers.filter((answer) => answer.status === 402).map((answer) => answer.server))).toEqual(new Set([0, 1]));

  for (const server of servers) await server.stop("SIGTERM");
  const view = viewMeter(meterFile);
  try {
    expect(await view.credits(id)).toBe(0);
    const charges = (await view.ledger(id)).filter((row) => row.kind === "charge");
    expect(charges).toHaveLength(CREDITS);
    expect(charges.every((row) => row.delta === -1 && row.operation === "get_project")).toBe(true);
    expect(new Set(charges.map((row) => row.request_id))).toEqual(new Set(charged.map((answer) => answer.body.meta.request_id)));
  } finally {
    await view.close();
  }
}, 60_000);
