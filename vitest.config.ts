import { availableParallelism } from "node:os";
import { defineConfig } from "vitest/config";

export default defineConfig({
  test: {
    include: ["test/**/*.test.ts"],
    // Tests that compare a client's latency alone and under attack run after, one file at a time
    // (vitest.timing.config.ts): beside another test file on 2 cores, their p99s measure that file.
    // The long scenarios (kill loops, stalled pipes, a million lines, rolling publishes) are
    // `npm run test:stress` (vitest.stress.config.ts), which CI runs after `npm test`.
    exclude: ["test/**/*.timing.test.ts", "test/**/*.stress.test.ts", "**/node_modules/**"],
    // Most files spend their time waiting on child processes and sockets: two at a time even on
    // two cores (vitest's default there is one) takes the suite from ~350 s to ~260 s.
    maxWorkers: Math.max(2, availableParallelism() - 1),
    testTimeout: 30_000,
    hookTimeout: 60_000,
    pool: "forks",
    globalSetup: ["test/_support/postgres-global.ts", "test/_support/temp-root.ts"],
  },
});
