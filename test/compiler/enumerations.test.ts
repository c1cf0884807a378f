// Free-form enumerations reach API responses, whose docs promise lower-case snake_case: the compiler
// refuses any other spelling, one `file:line: path: message` per value, with the spelling it expects.
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { expect, onTestFinished, test } from "vitest";
import { compileSnapshot } from "../../compiler/compile.ts";
import { FIXTURE_COMPILED_AT, FIXTURE_X_SECRET, fixtureDir } from "../_support/fixtures.ts";

test("every free-form enumeration that is not lower-case snake_case is refused", async () => {
  const dir = mkdtempSync(join(tmpdir(), "cei-enumerations-"));
  onTestFinished(() => rmSync(dir, { recursive: true, force: true }));
  const result = await compileSnapshot({
    sourceDir: fixtureDir("errors-enumerations"), outFile: join(dir, "snapshot.db"), compiledAt: FIXTURE_COMPILED_AT, xSecret: FIXTURE_X_SECRET,
  });
  expect(result.ok).toBe(false);
  const rule = "expected lower-case snake_case (a-z, 0-9, single underscores)";
  expect(result.ok ? [] : result.problems).toEqual([
    `events.jsonl:1: event_type: ${rule}: "meetup", not "_meetup"`,
    `news.jsonl:1: sentiment: ${rule}: "very_positive", not "very-positive"`,
    `projects.jsonl:1: features[0].category: ${rule}: "defi", not "DeFi"`,
    `projects.jsonl:1: events[0].type: ${rule}: "mainnet_launch", not "mainnet-launch"`,
    `projects.jsonl:1: funding[0].round_type: ${rule}: "series_b", not "series-b"`,
    `tokens.jsonl:1: tokenomics.model_type.value: ${rule}: "fixed_supply", not "Fixed Supply"`,
    `tokens.jsonl:1: tokenomics.allocations.value[0].bucket: ${rule}: "public_sale", not "public sale"`,
    // The cadence is a closed list: the unlock rule knows these and no other (decision 31).
    `tokens.jsonl:1: tokenomics.vesting_schedules.value[0].cadence: expected one of: daily, weekly, monthly, quarterly, yearly, linear`,
    `tokens.jsonl:1: tokenomics.utilities.value[0].utility_type: ${rule}: "fee_discount", not "fee__discount"`,
  ]);
});
