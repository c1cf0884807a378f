// listhen as the listener of `npm start` (server/listen-listhen.ts): a taken port moves to a free
// one, the address is 127.0.0.1 unless told, and listhen installs no signal handler of its own
// (its autoClose would exit on SIGINT/SIGTERM/SIGHUP and cut the drain and the snapshot swap).
// The limits and the listener's own answers are tested on it in listener-*.test.ts.
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, expect, it, onTestFinished } from "vitest";
import { startListhenServer } from "../../server/listen-listhen.ts";
import { createTestService, type TestService } from "../_support/server.ts";

let service: TestService;
beforeAll(async () => {
  service = await createTestService();
});
afterAll(() => service.close());

const signals = ["SIGINT", "SIGTERM", "SIGHUP"] as const;

it("moves to a free port when the asked one is taken, on 127.0.0.1, and leaves the signals alone", async () => {
  const taken: Server = createServer();
  await new Promise<void>((resolve) => taken.listen(0, "127.0.0.1", resolve));
  onTestFinished(() => void taken.close());
  const takenPort = (taken.address() as AddressInfo).port;
  const before = signals.map((signal) => process.listenerCount(signal));

  const running = await startListhenServer(service.app, { port: takenPort });
  onTestFinished(() => running.close());
  expect(signals.map((signal) => process.listenerCount(signal))).toEqual(before);
  const address = running.server.address() as AddressInfo;
  expect(address.address).toBe("127.0.0.1");
  expect(address.port).not.toBe(takenPort);
  expect(running.url).toBe(`http://127.0.0.1:${address.port}`);
  expect(running.urls).toEqual([running.url]);
  const { key } = service.newKey();
  const answer = await fetch(`${running.url}/v1/projects/aurora-swap`, { headers: { authorization: `Bearer ${key}` } });
  expect(answer.status).toBe(200);
});

it("takes the asked port when it is free", async () => {
  const probe: Server = createServer();
  await new Promise<void>((resolve) => probe.listen(0, "127.0.0.1", resolve));
  const free = (probe.address() as AddressInfo).port;
  await new Promise((resolve) => probe.close(resolve));
  const running = await startListhenServer(service.app, { port: free });
  onTestFinished(() => running.close());
  expect(running.url).toBe(`http://127.0.0.1:${free}`);
});
