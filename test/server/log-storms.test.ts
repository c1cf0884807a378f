// A storm of one error is logged once per interval with a count (server/log-storms.ts): through
// the real app, a meter that fails every request answers 500 each time, and the log holds one
// stack and then one summary line per interval, while the request lines (info) stay one each.
import { afterEach, expect, it, vi } from "vitest";
import { createLogger } from "../../server/log.ts";
import { repeatLimiter } from "../../server/log-storms.ts";
import { createTestService } from "../_support/server.ts";

type Line = Record<string, unknown>;

afterEach(() => {
  vi.useRealTimers();
});

function collected(intervalMs: number) {
  const lines: Line[] = [];
  const repeats = repeatLimiter(intervalMs);
  const logger = createLogger("info", { write: (line: string) => void lines.push(JSON.parse(line) as Line) }, repeats);
  return { lines, logger, repeats };
}

it("repeatLimiter: one line with the stack, then one summary per interval with the count, then quiet", () => {
  vi.useFakeTimers({ toFake: ["setTimeout", "clearTimeout"] });
  const { lines, logger } = collected(10_000);
  const boom = () => Object.assign(new Error("connect ECONNREFUSED 127.0.0.1:5432"), { code: "ECONNREFUSED" });
  for (let i = 0; i < 500; i++) logger.error({ err: boom(), request_id: `req_${i}` }, "unexpected error");
  logger.error({ err: new Error("another") }, "unexpected error");
  expect(lines).toHaveLength(2);
  expect(lines[0]).toMatchObject({ level: 50, msg: "unexpected error", request_id: "req_0", err: { message: "connect ECONNREFUSED 127.0.0.1:5432", stack: expect.stringContaining("Error: connect") } });
  expect(lines[1]).toMatchObject({ msg: "unexpected error", err: { message: "another" } });
  vi.advanceTimersByTime(10_000);
  expect(lines.slice(2)).toEqual([
    expect.objectContaining({
      level: 50, msg: "unexpected error", repeated: 499, interval_ms: 10_000, request_id: "req_499",
      error: { type: "Error", message: "connect ECONNREFUSED 127.0.0.1:5432", code: "ECONNREFUSED" },
    }),
  ]);
  // Still failing in the next interval: one more summary; then an interval without it ends the storm.
  for (let i = 0; i < 3; i++) logger.error({ err: boom() }, "unexpected error");
  vi.advanceTimersByTime(10_000);
  expect(lines.slice(3).map((line) => line.repeated)).toEqual([3]);
  vi.advanceTimersByTime(20_000);
  expect(lines).toHaveLength(4);
  logger.error({ err: boom() }, "unexpected error");
  expect(lines.at(-1)).toMatchObject({ err: { stack: expect.any(String) } });
  expect(lines.at(-1)).not.toHaveProperty("repeated");
});

it("repeatLimiter: lines below error are never held back, and flush writes a pending summary at once", () => {
  const { lines, logger, repeats } = collected(60_000);
  for (let i = 0; i < 5; i++) logger.info({ request_id: `req_${i}` }, "request");
  for (let i = 0; i < 5; i++) logger.warn({ event: "same" }, "same warning");
  for (let i = 0; i < 4; i++) logger.fatal("fatal thing");
  expect(lines.map((line) => line.msg)).toEqual([...Array(5).fill("request"), ...Array(5).fill("same warning"), "fatal thing"]);
  repeats.flush();
  expect(lines.at(-1)).toMatchObject({ level: 60, msg: "fatal thing", repeated: 3 });
});

it("a meter that fails every request: 500 each time, one request line each, one stack and a summary", async () => {
  const { lines, logger, repeats } = collected(60_000);
  const service = await createTestService({ logger });
  try {
    const { key } = service.newKey({ credits: 1_000 });
    service.meter.close();
    const statuses: number[] = [];
    for (let i = 0; i < 200; i++) statuses.push((await service.call("GET", "/v1/projects/aurora-swap", { key })).status);
    expect(new Set(statuses)).toEqual(new Set([500]));
    repeats.flush();
    expect(lines.filter((line) => line.msg === "request")).toHaveLength(200);
    const errors = lines.filter((line) => (line.level as number) >= 50);
    expect(errors).toHaveLength(2);
    expect(errors[0]).toMatchObject({ msg: "unexpected error", err: { stack: expect.any(String) } });
    expect(errors[1]).toMatchObject({ msg: "unexpected error", repeated: 199, error: { message: (errors[0]!.err as Line).message } });
    expect(errors[1]).not.toHaveProperty("err");
  } finally {
    service.close();
  }
});
