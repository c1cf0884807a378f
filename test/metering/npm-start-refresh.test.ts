// `npm start` stays fresh: every CEI_SAMPLE_REFRESH_MS (30 minutes by default; 1 s here) it writes
// the sample for that moment, compiles it over the served snapshot and swaps it in, printing so.
// `npm start -- --port N` chooses the port (here 0: an ephemeral one, never the default 8787).
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, expect, it } from "vitest";
import { startChildServer, type ChildServer } from "../_support/processes.ts";

const START = fileURLToPath(new URL("../../cli/start.ts", import.meta.url));

let home: string;
let server: ChildServer & { lines: string[] };
beforeAll(async () => {
  home = mkdtempSync(join(tmpdir(), "cei-start-refresh-"));
  const env: NodeJS.ProcessEnv = { ...process.env, CEI_HOME: home, CEI_SAMPLE_REFRESH_MS: "1000" };
  delete env.PORT;
  delete env.HOST;
  server = await startChildServer(
    ["--import", "tsx", START, "--port", "0"],
    (lines) => (lines.at(-1)?.includes("Ctrl-C stops the server") ? /cei is serving on (\S+)/.exec(lines.join("\n"))?.[1] : undefined),
    env,
    60_000,
  );
}, 90_000);
afterAll(async () => {
  await server?.stop("SIGTERM");
  if (home !== undefined) rmSync(home, { recursive: true, force: true });
});

it("takes --port, then recompiles the sample periodically and swaps it in", async () => {
  expect(new URL(server.url).port).not.toBe("8787");
  const first = (await fetch(`${server.url}/readyz`).then((r) => r.json())) as { snapshot: string };
  const deadline = Date.now() + 30_000;
  let swapped: RegExpExecArray | null = null;
  while (swapped === null) {
    if (Date.now() > deadline) throw new Error(`no swap printed; stderr:\n${server.stderr()}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
    swapped = /swapped in a fresh sample \(snapshot ([0-9a-f]{64})\)/.exec(server.lines.join("\n"));
  }
  const hash = swapped[1]!;
  expect(hash).not.toBe(first.snapshot);
  const key = readFileSync(join(home, "demo-key"), "utf8").trim();
  const response = await fetch(`${server.url}/v1/markets/snapshot`, { headers: { authorization: `Bearer ${key}` } });
  expect(response.status).toBe(200);
  // Either this refresh or a later one answered, each a whole snapshot.
  expect(response.headers.get("x-service-snapshot")).toMatch(/^[0-9a-f]{64}$/);
  expect(response.headers.get("x-service-snapshot")).not.toBe(first.snapshot);
}, 60_000);
