// PostgreSQL stops under `cei serve`: every metered request fails the same way and is answered
// 500. The log (stderr, read as a shipper reads it) keeps one request line per request, but the
// error is logged whole once, then summarised with `repeated: N`; every line is JSON, the pool's
// own "connection closed" warnings included. This file runs a PostgreSQL of its own, since it stops it.
import { afterAll, beforeAll, expect, inject, it } from "vitest";
import { openKeyStore } from "../../server/meter/open.ts";
import { startPostgres, type TestPostgres } from "../_support/postgres.ts";
import { fixtureSnapshot } from "./_http.ts";
import { keepAliveClient, startCeiServe } from "../_support/processes.ts";

const FAILED_REQUESTS = 300;

let postgres: TestPostgres;
beforeAll(async () => {
  postgres = await startPostgres(inject("systemTmpDir"));
}, 60_000);
afterAll(() => postgres?.remove());

it("while PostgreSQL is down: one request line per request, one stack per kind of error, then a count", async () => {
  const keys = await openKeyStore(postgres.adminUrl, { mustExist: false });
  const { key } = await keys.create({ tier: "internal", credits: 1_000 }, Date.now());
  await keys.close();
  const reader = await startCeiServe(await fixtureSnapshot(), postgres.adminUrl);
  const client = keepAliveClient(reader.url, 8);
  const statuses: number[] = [];
  try {
    expect((await client.get("/v1/projects/aurora-swap", key)).status).toBe(200);
    await postgres.stop();
    for (let i = 0; i < FAILED_REQUESTS; i++) statuses.push((await client.get("/v1/projects/aurora-swap", key)).status);
  } finally {
    client.close();
    // The pending summaries are written before the exit.
    await reader.stop("SIGTERM");
  }
  expect(new Set(statuses)).toEqual(new Set([500]));

  const text = reader.stderr();
  const lines = text.split("\n").filter((line) => line !== "").map((line) => JSON.parse(line) as Record<string, unknown>);
  expect(lines.filter((line) => line.msg === "request" && line.status === 500)).toHaveLength(FAILED_REQUESTS);
  const errors = lines.filter((line) => line.msg === "unexpected error");
  const whole = errors.filter((line) => line.repeated === undefined);
  const summaries = errors.filter((line) => line.repeated !== undefined);
  // A few kinds at most (refused, terminated, timed out), each with its stack once.
  expect(whole.length).toBeGreaterThanOrEqual(1);
  expect(whole.length).toBeLessThanOrEqual(5);
  for (const line of whole) expect(line.err).toMatchObject({ stack: expect.any(String) });
  for (const line of summaries) expect(line).toMatchObject({ interval_ms: 10_000, error: { message: expect.any(String) } });
  // Every failed request is accounted for: logged whole, or counted in a summary.
  const repeated = summaries.reduce((sum, line) => sum + (line.repeated as number), 0);
  expect(whole.length + repeated).toBe(FAILED_REQUESTS);
  expect(text).not.toContain("cei-test@");
}, 120_000);
