// Decision 39 on both meters, over real HTTP: a client whose connection closes before its charge
// commits is neither charged nor answered, and the request log says `client_closed`. The charge is
// held back by a transaction outside cei (SQLite: the file's write lock; PostgreSQL: the key's
// balance row), so that the close lands, deterministically, between admission and charge.
import Database from "better-sqlite3";
import pg from "pg";
import { afterEach, describe, expect, it } from "vitest";
import { createLogger } from "../../server/log.ts";
import type { Meter, SettleRequest } from "../../server/meter/interface.ts";
import { meterBackends, type MeterBackend } from "../_support/meter-backends.ts";
import { RawConnection } from "../_support/raw-http.ts";
import { until } from "../_support/until.ts";
import { startMeteredServer, type MeteredServer } from "./_http.ts";

type Line = Record<string, unknown>;

const cleanup: Array<() => unknown> = [];
afterEach(async () => {
  for (const step of cleanup.splice(0).reverse()) await step();
});

/** A transaction outside cei that keeps `keyId`'s charge from committing until released. */
async function holdCharges(server: MeteredServer, keyId: string): Promise<() => Promise<void>> {
  if (server.backend === "sqlite") {
    const db = new Database(server.meterLocation);
    db.prepare("BEGIN IMMEDIATE").run();
    return async () => {
      db.prepare("ROLLBACK").run();
      db.close();
    };
  }
  const client = new pg.Client({ connectionString: server.meterLocation });
  await client.connect();
  await client.query("BEGIN");
  await client.query("SELECT 1 FROM balances WHERE key_id = $1 FOR UPDATE", [keyId]);
  return async () => {
    await client.query("ROLLBACK");
    await client.end();
  };
}

async function untilCounted(server: MeteredServer, count: number): Promise<void> {
  for (let tries = 0; tries < 400; tries++) {
    const { windows } = await server.view.state();
    if ((windows as Array<{ request_count: number }>)[0]?.request_count === count) return;
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
  throw new Error(`the window never counted ${count} requests`);
}

const get = (key: string) => `GET /v1/projects/aurora-swap HTTP/1.1\r\nHost: cei\r\nAuthorization: Bearer ${key}\r\n\r\n`;

describe.each(meterBackends)("a client that hangs up before its charge commits (%s meter)", (backend: MeterBackend) => {
  it("is neither charged nor answered, and is logged as client_closed; a client that waits is charged", async () => {
    const lines: Line[] = [];
    const settling: Array<SettleRequest<unknown>> = [];
    const server = await startMeteredServer({
      backend,
      logger: createLogger("info", { write: (line: string) => void lines.push(JSON.parse(line) as Line) }),
      wrapMeter: (meter: Meter) => ({
        findKey: (secret, options) => meter.findKey(secret, options),
        status: (key) => meter.status(key),
        settle: (request) => {
          settling.push(request as SettleRequest<unknown>);
          return meter.settle(request);
        },
        reachable: () => meter.reachable(),
        close: () => meter.close(),
      }),
    });
    cleanup.push(() => server.close());
    const { id, key } = await server.newKey({ credits: 10 });
    // One request first, so that the key is known and its window row exists.
    expect((await server.call("GET", "/v1/key", { key })).status).toBe(200);
    settling.length = 0;

    const release = await holdCharges(server, id);
    let released = false;
    cleanup.push(() => released || release());
    const leaving = await RawConnection.open(server.url);
    const staying = await RawConnection.open(server.url);
    cleanup.push(() => leaving.socket.destroy(), () => staying.socket.destroy());
    await leaving.write(get(key));
    await staying.write(get(key));
    await until(() => settling.length === 2, "both requests in the meter", () => JSON.stringify(lines));
    // PostgreSQL: both admitted (counted in the window), now waiting for the charge the held row blocks.
    if (backend === "postgres") await untilCounted(server, 3);
    leaving.socket.destroy();
    await until(() => settling.some((request) => request.abandoned?.() === true), "the server to see the close", () => JSON.stringify(lines));
    const gone = settling.filter((request) => request.abandoned?.() === true);
    expect(gone).toHaveLength(1);
    released = true;
    await release();

    const answer = await staying.nextResponse();
    expect(answer).not.toBe("closed");
    if (answer === "closed") return;
    expect(answer.status).toBe(200);
    const staid = JSON.parse(answer.body) as { meta: { request_id: string; credits_used: number; credits_remaining: number } };
    expect(staid.meta).toMatchObject({ credits_used: 1, credits_remaining: 9 });

    const charges = (await server.view.ledger(id)).filter((row) => row.kind === "charge");
    expect(charges.map((row) => row.request_id)).toEqual([staid.meta.request_id]);
    expect(await server.view.credits(id)).toBe(9);

    await until(() => lines.filter((line) => line.msg === "request").length === 3, "three request lines", () => JSON.stringify(lines));
    const closed = lines.filter((line) => line.msg === "request" && line.request_id !== staid.meta.request_id && line.operation === "get_project");
    expect(closed).toEqual([expect.objectContaining({ key_id: id, status: 499, reason: "client_closed", credits_used: 0 })]);
    expect(closed[0]).not.toHaveProperty("code");
    expect(closed[0]!.request_id).toBe(gone[0]!.requestId);
  });

  it("a request whose client had closed before it was even read (a reader stopped, then resumed) is neither charged nor answered", async () => {
    const lines: Line[] = [];
    const server = await startMeteredServer({ backend, logger: createLogger("info", { write: (line: string) => void lines.push(JSON.parse(line) as Line) }) });
    cleanup.push(() => server.close());
    const { id, key } = await server.newKey({ credits: 10 });
    expect((await server.call("GET", "/v1/key", { key })).status).toBe(200);
    const connections = await Promise.all([0, 1, 2, 3, 4].map(() => RawConnection.open(server.url)));
    // In one turn of this process's event loop, so that the server finds each request and its
    // client's close waiting together, as a stopped reader finds them when it resumes.
    for (const connection of connections) connection.socket.write(get(key));
    for (const connection of connections) connection.socket.destroy();
    await until(() => lines.filter((line) => line.operation === "get_project").length === 5, "five request lines", () => JSON.stringify(lines));
    expect(lines.filter((line) => line.operation === "get_project").map((line) => [line.status, line.reason, line.credits_used]))
      .toEqual(Array(5).fill([499, "client_closed", 0]));
    expect((await server.view.ledger(id)).filter((row) => row.kind === "charge")).toEqual([]);
    expect(await server.view.credits(id)).toBe(10);
  });
});
