import { defineConfig } from "vitest/config";

export default defineConfig({
  test: {
    include: ["test/**/*.test.ts"],
    // Tests that compare a client's latency alone and under attack run after, one file at a time
    // (vitest.timing.config.ts): beside another test file on 2 cores, their p99s measure that file.
    exclude: ["test/**/*.timing.test.ts", "**/node_modules/**"],
    testTimeout: 30_000,
    hookTimeout: 60_000,
    pool: "forks",
    globalSetup: ["test/_support/postgres-global.ts", "test/_support/temp-root.ts"],
  },
});
