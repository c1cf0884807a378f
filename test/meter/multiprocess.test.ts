import { fileURLToPath } from "node:url";
import { afterEach, beforeEach, expect, it } from "vitest";
import { inspect, issueKey, startReadyChild, tempDir, type ReadyChild, type TempDir } from "./_helpers.ts";

const HAMMER = fileURLToPath(new URL("./_hammer.ts", import.meta.url));
const ATTEMPTS_PER_PROCESS = 500; // 1,500 attempts for 600 possible charges
let dir: TempDir;
beforeEach(() => { dir = tempDir(); });
afterEach(() => dir.remove());

function startHammer(file: string, secret: string, attempts: number, cost: number, label: string): ReadyChild {
  return startReadyChild(HAMMER, [file, secret, String(attempts), String(cost), label], `hammer ${label}`);
}

it("no double spend across processes: exactly K/cost charges in total, balance 0, ledger = charges", async () => {
  const file = dir.file("meter.db");
  const credits = 1_200;
  const cost = 2;
  const { id, key } = issueKey(file, { credits, tier: "internal" });

  const hammers = ["a", "b", "c"].map((label) => startHammer(file, key, ATTEMPTS_PER_PROCESS, cost, label));
  await Promise.all(hammers.map((hammer) => hammer.ready));
  for (const hammer of hammers) hammer.go();
  const tallies = await Promise.all(hammers.map((hammer) => hammer.done));

  const charged = tallies.reduce((sum, tally) => sum + tally.charged!, 0);
  const refused = tallies.reduce((sum, tally) => sum + tally.insufficient_credits!, 0);
  expect(charged).toBe(credits / cost);
  expect(refused).toBe(3 * ATTEMPTS_PER_PROCESS - credits / cost);
  expect(tallies.map((tally) => tally.other)).toEqual([0, 0, 0]);

  const view = inspect(file);
  expect(view.credits(id)).toBe(0);
  const charges = view.ledger(id).filter((row) => row.kind === "charge");
  expect(charges).toHaveLength(charged);
  expect(new Set(charges.map((row) => row.request_id)).size).toBe(charged);
  expect(view.ledgerSum(id)).toBe(0);
  view.close();
}, 60_000);
