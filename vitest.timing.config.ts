// The timing tests of `npm test` (test/**/*.timing.test.ts): a victim's latency alone against the
// same under a slowloris or a docs flood. Run after the rest, one file at a time, so that the only
// other load on the machine is the attack each test makes itself. A p99 of 200 requests is their
// second-slowest, so one stray pause of the machine (another process, the collector) can move it
// past the bound; a failed comparison is measured again, twice at most, and a real slowdown fails
// all three.
import { defineConfig } from "vitest/config";

export default defineConfig({
  test: {
    include: ["test/**/*.timing.test.ts"],
    testTimeout: 60_000,
    hookTimeout: 60_000,
    pool: "forks",
    fileParallelism: false,
    retry: 2,
    globalSetup: ["test/_support/temp-root.ts"],
  },
});
