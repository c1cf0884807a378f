// Waiting in tests for something another process or a timer does.

/** Polls `condition` every 5 ms; on time-out, the error names `what` and what `log` returns. */
export async function until(condition: () => boolean, what: string, log: () => string, timeoutMs = 10_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}; log:\n${log()}`);
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
}
