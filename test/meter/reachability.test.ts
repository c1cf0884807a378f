// Readiness's view of the meter (server/meter/reachability.ts, decision 40) at a bounded cost: the
// meter's own traffic answers; a probe runs only when nothing has been seen for a second, one at a
// time however many health checks ask at once.
import { describe, expect, it } from "vitest";
import { isUnreachable, PROBE_INTERVAL_MS, Reachability } from "../../server/meter/reachability.ts";

function probed(answer: () => Promise<void>, probeWhileReachable = true) {
  const clock = { now: 0 };
  let probes = 0;
  const reachability = new Reachability(() => {
    probes += 1;
    return answer();
  }, { probeWhileReachable, clock: () => clock.now });
  return { reachability, clock, probes: () => probes };
}

describe("Reachability", () => {
  it("probes once for any number of questions at once, then not again within the interval", async () => {
    const { reachability, clock, probes } = probed(() => Promise.resolve());
    const answers = await Promise.all(Array.from({ length: 100 }, () => reachability.reachable()));
    expect(answers.every(Boolean)).toBe(true);
    expect(probes()).toBe(1);
    clock.now += PROBE_INTERVAL_MS - 1;
    await reachability.reachable();
    expect(probes()).toBe(1);
    clock.now += 1;
    await reachability.reachable();
    expect(probes()).toBe(2);
  });

  it("never probes while the meter's own batches keep answering", async () => {
    const { reachability, clock, probes } = probed(() => Promise.resolve());
    for (let second = 0; second < 10; second++) {
      clock.now += PROBE_INTERVAL_MS / 2;
      reachability.succeeded();
      expect(await reachability.reachable()).toBe(true);
    }
    expect(probes()).toBe(0);
  });

  it("a failed batch makes it unreachable at once; a probe a second later finds it back", async () => {
    let up = false;
    const { reachability, clock, probes } = probed(() => (up ? Promise.resolve() : Promise.reject(new Error("connect ECONNREFUSED"))));
    reachability.failed();
    expect(await reachability.reachable()).toBe(false);
    expect(probes()).toBe(0);
    clock.now += PROBE_INTERVAL_MS;
    expect(await reachability.reachable()).toBe(false);
    up = true;
    clock.now += PROBE_INTERVAL_MS;
    expect(await reachability.reachable()).toBe(true);
    expect(probes()).toBe(2);
  });

  it("a local file is never probed while it works, only once it has failed", async () => {
    const { reachability, clock, probes } = probed(() => Promise.resolve(), false);
    clock.now += 10 * PROBE_INTERVAL_MS;
    expect(await reachability.reachable()).toBe(true);
    expect(probes()).toBe(0);
    reachability.failed();
    clock.now += PROBE_INTERVAL_MS;
    expect(await reachability.reachable()).toBe(true);
    expect(probes()).toBe(1);
  });

  it("a probe that does not answer keeps the question waiting at most half a second", async () => {
    const { reachability } = probed(() => new Promise<void>(() => undefined));
    const started = performance.now();
    expect(await reachability.reachable()).toBe(true);
    expect(performance.now() - started).toBeLessThan(2_000);
  });
});

describe("isUnreachable", () => {
  it("tells a lost connection from a failed statement", () => {
    expect(isUnreachable(Object.assign(new Error("connect ECONNREFUSED 127.0.0.1:5432"), { code: "ECONNREFUSED" }))).toBe(true);
    expect(isUnreachable(Object.assign(new Error("terminating connection due to administrator command"), { code: "57P01" }))).toBe(true);
    expect(isUnreachable(Object.assign(new Error("the database system is starting up"), { code: "57P03" }))).toBe(true);
    expect(isUnreachable(new Error("Connection terminated unexpectedly"))).toBe(true);
    expect(isUnreachable(new Error("timeout exceeded when trying to connect"))).toBe(true);
    expect(isUnreachable(Object.assign(new Error("canceling statement due to statement timeout"), { code: "57014" }))).toBe(false);
    expect(isUnreachable(Object.assign(new Error("permission denied for table keys"), { code: "42501" }))).toBe(false);
  });
});
