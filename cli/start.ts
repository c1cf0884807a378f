// `npm start`: everything a newcomer needs after `npm install`. Generates the bundled sample fresh
// for this moment, compiles it, makes sure there is a working demo key, and serves.
// State lives in ./var (CEI_HOME to change it); each run refreshes the sample and snapshot, and
// so does every CEI_SAMPLE_REFRESH_MS while it runs (30 minutes), swapping the new one in.
// `npm start -- --port N --host ADDR` (or PORT, HOST) chooses the address; without a port, 8787 or,
// when that is taken, a free one (listhen, server/listen-listhen.ts). `--log-level` as `cei serve`.
import { randomBytes } from "node:crypto";
import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { parseArgs } from "node:util";
import { compileSnapshot } from "../compiler/compile.ts";
import { writeSample } from "../data/sample.ts";
import { createApp } from "../server/app.ts";
import { closeOnSignals } from "../server/listen.ts";
import { startListhenServer } from "../server/listen-listhen.ts";
import { createServiceLog, parseLogLevel, type Logger } from "../server/log.ts";
import { openMeterDatabase } from "../server/meter/sqlite/database.ts";
import { createKey, listKeys } from "../server/meter/sqlite/keys.ts";
import { hashSecret } from "../server/meter/secret.ts";
import { SqliteMeter } from "../server/meter/sqlite/meter.ts";
import { Serving } from "../server/serving.ts";
import { listenerLog, servingLog } from "../server/observe.ts";
import { readXSecret } from "./compile.ts";

const args = parseArgs({ options: { port: { type: "string" }, host: { type: "string" }, "log-level": { type: "string" } } }).values;
const home = resolve(process.env.CEI_HOME ?? "var");
const DEFAULT_PORT = 8787;
const askedPort = args.port ?? process.env.PORT;
const port = Number(askedPort ?? DEFAULT_PORT);
const host = args.host ?? process.env.HOST ?? "127.0.0.1";
const refreshMs = Number(process.env.CEI_SAMPLE_REFRESH_MS ?? 30 * 60_000);
const paths = {
  sample: join(home, "sample"),
  snapshot: join(home, "snapshot.db"),
  meter: join(home, "meter.db"),
  xSecret: join(home, "x-secret"),
  demoKey: join(home, "demo-key"),
};

/**
 * A per-installation secret, kept so that X account ids stay stable across restarts; read with
 * the same checks as `cei compile --x-secret-file` (a regular file of yours, mode 0600, 32+ bytes).
 */
function readStartSecret(file: string): string {
  if (!existsSync(file)) writeFileSync(file, randomBytes(32).toString("hex") + "\n", { mode: 0o600, flag: "wx" });
  return readXSecret(file)!;
}

/**
 * The demo key's secret is kept in var/demo-key (local development only; the meter itself stores
 * hashes), so that every restart can print a working curl line. A demo key is created only in a
 * meter that has no key at all: a saved key that was revoked or disabled stays so, and is named.
 */
function ensureDemoKey(): { key: string } | { notice: string } {
  const db = openMeterDatabase(paths.meter);
  try {
    const create = `create one with: npx cei keys create --meter ${paths.meter} --tier pro --credits 1000`;
    if (listKeys(db).length === 0) {
      const created = createKey(db, { tier: "pro", credits: 100_000, name: "demo" }, Date.now());
      writeFileSync(paths.demoKey, created.key + "\n", { mode: 0o600 });
      return { key: created.key };
    }
    if (!existsSync(paths.demoKey)) return { notice: `The meter already has keys; ${create}` };
    const secret = readFileSync(paths.demoKey, "utf8").trim();
    const saved = db.prepare<[string], { id: string; state: string }>("SELECT id, state FROM keys WHERE secret_sha256 = ?").get(hashSecret(secret));
    if (saved === undefined) return { notice: `The demo key saved in ${paths.demoKey} is not in ${paths.meter}; ${create}` };
    if (saved.state === "active") return { key: secret };
    const enable = saved.state === "disabled" ? `enable it with: npx cei keys enable ${saved.id} --meter ${paths.meter}, or ` : "";
    return { notice: `The demo key ${saved.id} saved in ${paths.demoKey} is ${saved.state}: no new key was created; ${enable}${create}` };
  } finally {
    db.close();
  }
}

/** Writes the sample as of now and compiles it over the served path (the compiler renames atomically). */
async function compileFreshSample(): Promise<boolean> {
  const now = new Date();
  process.stderr.write(`cei: writing the sample as of ${now.toISOString()} to ${paths.sample}\n`);
  await writeSample({ outDir: paths.sample, asOf: now, scale: 1 });
  const xSecret = readStartSecret(paths.xSecret);
  const compiled = await compileSnapshot({
    sourceDir: paths.sample,
    outFile: paths.snapshot,
    compiledAt: now,
    xSecret,
  });
  if (!compiled.ok) process.stderr.write(compiled.problems.join("\n") + "\ncei: the sample did not compile\n");
  return compiled.ok;
}

/** Keeps the demo fresh on any day it runs: a new sample every refreshMs, swapped in. */
function refreshPeriodically(serving: Serving, logger: Logger): void {
  const refresh = async () => {
    try {
      if ((await compileFreshSample()) && (await serving.swap()) === "swapped") {
        process.stdout.write(`cei: ${new Date().toISOString()}: swapped in a fresh sample (snapshot ${serving.contentHash})\n`);
      }
    } catch (error) {
      logger.error({ event: "sample_refresh_failed", err: error }, `cei: refreshing the sample failed: ${(error as Error).message}`);
    }
    setTimeout(() => void refresh(), refreshMs).unref();
  };
  setTimeout(() => void refresh(), refreshMs).unref();
}

async function main(): Promise<void> {
  if (!Number.isInteger(port) || port < 0 || port > 65_535) throw new Error(`--port (or PORT) must be 0-65535, got ${port}`);
  if (!(refreshMs > 0)) throw new Error(`CEI_SAMPLE_REFRESH_MS must be a positive number of milliseconds`);
  mkdirSync(home, { recursive: true });
  if (!(await compileFreshSample())) process.exit(1);
  process.stderr.write(`cei: compiled ${paths.snapshot}\n`);

  const meter = SqliteMeter.open(paths.meter);
  const demo = ensureDemoKey();
  const key = "key" in demo ? demo.key : undefined;
  const log = createServiceLog(parseLogLevel(args["log-level"] ?? "info"));
  const { logger } = log;
  const serving = await Serving.open(paths.snapshot, { xSecret: readStartSecret(paths.xSecret), log: servingLog(logger, undefined) });
  const releaseTrendingProjects = process.env.CEI_RELEASE_TRENDING_PROJECTS === "1";
  const app = createApp({ serving, meter, releaseTrendingProjects, logger, warmReference: true });
  const running = await startListhenServer(app, { port, host, snapshot: () => serving.contentHash, onListenerAnswer: listenerLog(logger, undefined) });
  if (askedPort !== undefined && Number(askedPort) !== 0 && !running.url.endsWith(`:${port}`)) {
    await running.close();
    throw new Error(`port ${port} is taken (asked with --port or PORT); choose another`);
  }

  const snapshot = serving.acquire();
  const example = snapshot.db.prepare<[], { slug: string }>("SELECT slug FROM projects ORDER BY slug LIMIT 1").get();
  serving.release(snapshot);
  const auth = key === undefined ? "Authorization: Bearer <your key>" : `Authorization: Bearer ${key}`;
  process.stdout.write(
    [
      "",
      `cei is serving on ${running.urls.join(" ")}` + (running.url.endsWith(`:${port}`) ? "" : ` (port ${port} is taken)`),
      "notice" in demo ? demo.notice : `Demo key (tier pro, 100000 credits): ${demo.key}`,
      "",
      "Try:",
      `  curl -s -H "${auth}" ${running.url}/v1/markets/snapshot`,
      `  curl -s -H "${auth}" ${running.url}/v1/projects/${example?.slug ?? "<slug>"}/features`,
      `  curl -s -H "${auth}" -H "content-type: application/json" -d '{"q":"${example?.slug.slice(0, 4) ?? "ab"}","limit":5}' ${running.url}/v1/search`,
      "",
      "Every operation is listed in docs/api.md. Ctrl-C stops the server.",
      "",
    ].join("\n"),
  );

  refreshPeriodically(serving, logger);
  closeOnSignals(running, [meter, serving], log);
}

await main();
