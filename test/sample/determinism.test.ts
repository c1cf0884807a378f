// The same as-of and scale give byte-identical files; another as-of moves every date and
// nothing else.
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { families } from "../../compiler/families/index.ts";
import { AS_OF, DAY, generateSample, readLines } from "../_support/sample.ts";

const DATE_OR_TIME = /\b\d{4}-\d{2}-\d{2}(?:T\d{2}:\d{2}:\d{2}\.\d{3}Z)?\b/g;

function shiftDates(line: string, ms: number): string {
  return line.replace(DATE_OR_TIME, (match) => {
    const shifted = new Date(Date.parse(match.length === 10 ? `${match}T00:00:00.000Z` : match) + ms).toISOString();
    return match.length === 10 ? shifted.slice(0, 10) : shifted;
  });
}

describe("writeSample determinism", () => {
  it("gives byte-identical files for the same as-of and scale", async () => {
    const first = await generateSample(AS_OF, 2);
    const second = await generateSample(AS_OF, 2);
    expect(second.files).toEqual(first.files);
    for (const { file } of families) {
      const a = readFileSync(join(first.dir, file));
      const b = readFileSync(join(second.dir, file));
      expect(a.length, file).toBeGreaterThan(0);
      expect(b.equals(a), file).toBe(true);
    }
  });

  it("shifts every date by the as-of difference and changes nothing else", async () => {
    const shift = 2 * DAY;
    const before = await generateSample(AS_OF);
    const after = await generateSample(new Date(AS_OF.getTime() + shift));
    expect(after.files).toEqual(before.files);
    for (const { file } of families) {
      const expected = readLines(before.dir, file).map((line) => shiftDates(line, shift));
      expect(readLines(after.dir, file), file).toEqual(expected);
    }
  });

  it("depends on the as-of instant, not only its date", async () => {
    const morning = await generateSample(new Date("2026-06-15T01:00:00.000Z"));
    const evening = await generateSample(new Date("2026-06-15T23:00:00.000Z"));
    const line = (dir: string) => JSON.parse(readLines(dir, "tokens.jsonl")[0]!) as { market: { observed_at: string } };
    const gap = Date.parse(line(evening.dir).market.observed_at) - Date.parse(line(morning.dir).market.observed_at);
    expect(gap).toBe(22 * 3_600_000);
  });
});
