// Vitest global setup: one PostgreSQL for the whole run (test files each create a database of
// their own in it, test/_support/meter-backends.ts), stopped and removed when the run ends.
// Listed before temp-root.ts, so that it lives in the system temp folder, which the `postgres`
// user can traverse, not in the run's private one.
import { tmpdir } from "node:os";
import type { TestProject } from "vitest/node";
import { importPostgresHelpers } from "./postgres-import.ts";

declare module "vitest" {
  export interface ProvidedContext {
    postgresAdminUrl: string;
    /** The system temp folder (the run's own is private): where a test may start a PostgreSQL of its own. */
    systemTmpDir: string;
  }
}

export async function setup(project: TestProject): Promise<() => Promise<void>> {
  const { startPostgres } = await importPostgresHelpers();
  const postgres = await startPostgres();
  project.provide("postgresAdminUrl", postgres.adminUrl);
  project.provide("systemTmpDir", tmpdir());
  return () => postgres.remove();
}
