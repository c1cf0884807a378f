// `npm start`: everything a newcomer needs after `npm install`. Generates the bundled sample fresh
// for this moment, compiles it, makes sure there is a working demo key, and serves.
// State lives in ./var (CEI_HOME to change it); each run refreshes the sample and snapshot.
import { randomBytes } from "node:crypto";
import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { compileSnapshot } from "../compiler/compile.ts";
import { writeSample } from "../data/sample.ts";
import { createApp } from "../server/app.ts";
import { closeOnSignals, startServer } from "../server/listen.ts";
import { openMeterDatabase } from "../server/meter/_database.ts";
import { createKey, listKeys } from "../server/meter/keys.ts";
import { hashSecret } from "../server/meter/_secret.ts";
import { Meter } from "../server/meter/meter.ts";
import { openSnapshot } from "../server/snapshot.ts";

const home = resolve(process.env.CEI_HOME ?? "var");
const port = Number(process.env.PORT ?? 8787);
const host = process.env.HOST ?? "127.0.0.1";
const paths = {
  sample: join(home, "sample"),
  snapshot: join(home, "snapshot.db"),
  meter: join(home, "meter.db"),
  xSecret: join(home, "x-secret"),
  demoKey: join(home, "demo-key"),
};

/** A per-installation secret, kept so that X account ids stay stable across restarts. */
function readOrCreateSecret(file: string): string {
  if (!existsSync(file)) writeFileSync(file, randomBytes(32).toString("hex") + "\n", { mode: 0o600 });
  return readFileSync(file, "utf8").trim();
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

async function main(): Promise<void> {
  mkdirSync(home, { recursive: true });
  const now = new Date();
  process.stderr.write(`cei: writing the sample as of ${now.toISOString()} to ${paths.sample}\n`);
  await writeSample({ outDir: paths.sample, asOf: now, scale: 1 });
  const xSecret = readOrCreateSecret(paths.xSecret);
  const compiled = await compileSnapshot({
    sourceDir: paths.sample,
    outFile: paths.snapshot,
    compiledAt: now,
    xSecret,
  });
  if (!compiled.ok) {
    process.stderr.write(compiled.problems.join("\n") + "\ncei: the sample did not compile\n");
    process.exit(1);
  }
  process.stderr.write(`cei: compiled ${paths.snapshot}\n`);

  const meter = Meter.open(paths.meter);
  const demo = ensureDemoKey();
  const key = "key" in demo ? demo.key : undefined;
  const snapshot = openSnapshot(paths.snapshot);
  const releaseTrendingProjects = process.env.CEI_RELEASE_TRENDING_PROJECTS === "1";
  const running = await startServer(createApp({ snapshot, meter, releaseTrendingProjects, xSecret }), { port, host });

  const example = snapshot.prepare<[], { slug: string }>("SELECT slug FROM projects ORDER BY slug LIMIT 1").get();
  const auth = key === undefined ? "Authorization: Bearer <your key>" : `Authorization: Bearer ${key}`;
  process.stdout.write(
    [
      "",
      `cei is serving on ${running.url}`,
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

  closeOnSignals(running, [meter, snapshot]);
}

await main();
