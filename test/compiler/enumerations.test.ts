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
  const rule = (max: number) => `expected lower-case snake_case of 1-${max} characters (a-z, 0-9, single underscores, starting with a letter)`;
  expect(result.ok ? [] : result.problems).toEqual([
    `events.jsonl:1: event_type: ${rule(64)}: "_meetup" may not start with "_"; did you mean "meetup"?`,
    `news.jsonl:1: sentiment: ${rule(32)}: "very-positive" has "-" at character 5; did you mean "very_positive"?`,
    `projects.jsonl:1: features[0].category: ${rule(64)}: "DeFi" has "D" at character 1; did you mean "defi"?`,
    `projects.jsonl:1: events[0].type: ${rule(64)}: "mainnet-launch" has "-" at character 8; did you mean "mainnet_launch"?`,
    `projects.jsonl:1: funding[0].round_type: ${rule(64)}: "series-b" has "-" at character 7; did you mean "series_b"?`,
    `tokens.jsonl:1: tokenomics.model_type.value: ${rule(64)}: "Fixed Supply" has "F" at character 1; did you mean "fixed_supply"?`,
    `tokens.jsonl:1: tokenomics.allocations.value[0].bucket: ${rule(64)}: "public sale" has " " (a space) at character 7; did you mean "public_sale"?`,
    // The cadence is a closed list: the unlock rule knows these and no other (decision 31).
    `tokens.jsonl:1: tokenomics.vesting_schedules.value[0].cadence: expected one of: daily, weekly, monthly, quarterly, yearly, linear; not "Monthly": did you mean "monthly"?`,
    `tokens.jsonl:1: tokenomics.utilities.value[0].utility_type: ${rule(64)}: "fee__discount" has "__" at character 4; did you mean "fee_discount"?`,
  ]);
});
