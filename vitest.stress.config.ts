// The long scenarios (test/**/*.stress.test.ts): SIGKILL loops under load, a stalled stderr over
// 120,000 requests, a million-line source, rolling publishes to three readers. Each loads the
// machine itself, so they run one file at a time; CI runs them after `npm test`.
import { defineConfig } from "vitest/config";

export default defineConfig({
  test: {
    include: ["test/**/*.stress.test.ts"],
    testTimeout: 180_000,
    hookTimeout: 60_000,
    pool: "forks",
    fileParallelism: false,
    globalSetup: ["test/_support/postgres-global.ts", "test/_support/temp-root.ts"],
  },
});
