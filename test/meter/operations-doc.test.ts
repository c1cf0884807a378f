// docs/operations.md publishes the cost and tier tables; they must be policy.ts's numbers.
import { readFileSync } from "node:fs";
import { expect, it } from "vitest";
import { RATE_WINDOW_MS, operationIds, operationPolicy, tierRateLimits, tiers } from "../../server/policy.ts";

const doc = readFileSync(new URL("../../docs/operations.md", import.meta.url), "utf8");

/** Rows of the markdown table that follows `<!-- marker -->`, as arrays of cell text without backticks. */
function tableAfter(marker: string): string[][] {
  const lines = doc.slice(doc.indexOf(`<!-- ${marker} -->`)).split("\n").slice(1);
  const table = lines.slice(0, lines.findIndex((line) => !line.startsWith("|")));
  return table.slice(2).map((line) => line.split("|").slice(1, -1).map((cell) => cell.trim().replaceAll("`", "")));
}

it("the operation cost table equals operationPolicy", () => {
  expect(tableAfter("operation-costs")).toEqual(
    operationIds.map((id) => [id, operationPolicy[id].scope ?? "none", String(operationPolicy[id].cost)]),
  );
});

it("the tier table equals tierRateLimits and the window length", () => {
  expect(tableAfter("tier-limits")).toEqual(tiers.map((tier) => [tier, tierRateLimits[tier].toLocaleString("en-US")]));
  expect(doc).toContain(`requests per ${RATE_WINDOW_MS / 1000}-second window`);
});
