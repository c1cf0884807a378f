// --scale grows every family in proportion: about 1,100 lines per unit of scale.
import { describe, expect, it } from "vitest";
import { baseCounts, makePlan } from "../../data/plan.ts";
import { AS_OF, generateSample } from "../_support/sample.ts";

const total = (files: Record<string, number>): number => Object.values(files).reduce((a, b) => a + b, 0);

describe("writeSample scale", () => {
  it("writes about 1,100 lines at scale 1 and about ten times as many at scale 10", async () => {
    const one = await generateSample(AS_OF, 1);
    const ten = await generateSample(AS_OF, 10);
    expect(total(one.files)).toBeGreaterThan(1_000);
    expect(total(one.files)).toBeLessThan(1_200);
    const ratio = total(ten.files) / total(one.files);
    expect(ratio).toBeGreaterThan(9.5);
    expect(ratio).toBeLessThan(10.5);
    for (const [file, lines] of Object.entries(one.files)) {
      expect(ten.files[file]! / lines, file).toBeCloseTo(10, 0);
    }
  });

  it("keeps the scale-1 structure for scales below 1 and rounds fractional scales", () => {
    expect(makePlan(AS_OF, 0.25).counts).toEqual(makePlan(AS_OF, 1).counts);
    expect(makePlan(AS_OF, 2.5).counts.projects).toBe(baseCounts.projects * 2.5);
    expect(makePlan(AS_OF, 1000).counts.tokens).toBe(240_000);
  });

  it("rejects a scale that is not a positive number", async () => {
    for (const scale of [0, -1, Number.NaN, Number.POSITIVE_INFINITY]) {
      await expect(generateSample(AS_OF, scale)).rejects.toThrow(/scale must be a positive number/);
    }
  });
});
