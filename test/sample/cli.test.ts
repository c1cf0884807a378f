// `cei sample`: option parsing and the command run in-process.
import { readdirSync, statSync } from "node:fs";
import { join } from "node:path";
import { Command } from "commander";
import { afterEach, describe, expect, it, vi } from "vitest";
import { readXSecret } from "../../cli/compile.ts";
import { parseAsOf, parseScale, registerSample } from "../../cli/sample.ts";
import { families } from "../../compiler/families/index.ts";
import { tempDir } from "../_support/sample.ts";

describe("parseAsOf", () => {
  it("accepts ISO 8601 date-times with a zone, and dates as midnight UTC", () => {
    expect(parseAsOf("2026-06-15T12:34:56.789Z").toISOString()).toBe("2026-06-15T12:34:56.789Z");
    expect(parseAsOf("2026-06-15T14:34+02:00").toISOString()).toBe("2026-06-15T12:34:00.000Z");
    expect(parseAsOf("2028-02-29").toISOString()).toBe("2028-02-29T00:00:00.000Z");
  });

  it("rejects local times, impossible days and other text", () => {
    for (const value of ["2026-06-15T12:34:56", "2026-02-30", "2026-13-01T00:00:00Z", "yesterday", "", "1718454896"]) {
      expect(() => parseAsOf(value), value).toThrow(/expected an ISO 8601 date-time with a zone/);
    }
  });
});

describe("parseScale", () => {
  it("accepts positive numbers", () => {
    expect(parseScale("1")).toBe(1);
    expect(parseScale("2.5")).toBe(2.5);
    expect(parseScale("1e3")).toBe(1000);
  });

  it("rejects zero, negatives, non-numbers and absurd sizes", () => {
    for (const value of ["0", "-1", "abc", "", "1x", "Infinity"]) expect(() => parseScale(value), value).toThrow(/positive number/);
    expect(() => parseScale("1000000")).toThrow(/at most 100000/);
  });
});

describe("cei sample", () => {
  afterEach(() => {
    vi.restoreAllMocks();
  });

  const program = () => {
    const root = new Command("cei").exitOverride();
    root.configureOutput({ writeErr: () => {}, writeOut: () => {} });
    registerSample(root);
    return root;
  };

  it("writes every family file and prints a one-line summary to stderr", async () => {
    const out = join(tempDir("cei-sample-cli-"), "nested");
    const stderr = vi.spyOn(process.stderr, "write").mockImplementation(() => true);
    await program().parseAsync(["sample", "--out", out, "--as-of", "2026-06-15T12:00:00Z", "--scale", "1"], { from: "user" });
    expect(readdirSync(out).sort()).toEqual([".cei-x-secret", ...families.map((f) => f.file)].sort());
    // The X id secret lives with the sources, private to their owner (cli/compile.ts reads it there).
    expect(statSync(join(out, ".cei-x-secret")).mode & 0o777).toBe(0o600);
    expect(readXSecret(undefined, join(out, ".cei-x-secret"), {})).toMatch(/^[0-9a-f]{64}$/);
    const lines = stderr.mock.calls.map((call) => String(call[0]));
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatch(/^sample: wrote 1,114 lines in 10 files to .+ \(as-of 2026-06-15T12:00:00\.000Z, scale 1\) in \d+\.\ds\n$/);
  });

  it("fails with a clear error on a bad option", async () => {
    await expect(program().parseAsync(["sample", "--out", "x", "--scale", "0"], { from: "user" })).rejects.toThrow(
      /--scale <n>.*positive number/,
    );
    await expect(program().parseAsync(["sample"], { from: "user" })).rejects.toThrow(/--out <dir>/);
  });
});
