// `npm run test:browser`: the reference page in a real headless Chromium (Debian's `chromium`
// package at /usr/bin/chromium). Kept out of `npm test`, whose config only takes *.test.ts.
import { defineConfig } from "vitest/config";

export default defineConfig({
  test: {
    include: ["test/browser/**/*.browser.ts"],
    testTimeout: 60_000,
    hookTimeout: 60_000,
    pool: "forks",
  },
});
