// The hung-reader scenario through the deployment kit's nginx (deploy/nginx/cei.conf), with numbers:
// three `cei serve` readers on one PostgreSQL meter, nginx with TLS in front, a fixed rate of
// requests from clients that give up after 10 s, spread over 30 keys; one reader is stopped
// (SIGSTOP) for 12 s, then resumed. It prints the answers per second before, during and after the
// stop, and checks that once the proxy's 5 s timeout has taken the reader out the others answer
// what is sent, and against the ledger that no request was charged twice and none that went
// unanswered was charged. .ci/run runs it (exit 1 when a check fails):
//   scripts/node.sh 24 npx tsx scripts/nginx-hung-reader.ts [--baseline] [--cei <bin/cei.js>]
// --baseline runs the same load through nginx's usual settings instead (round robin, the default
// 60 s read timeout, a timeout retried on the next reader), to show what the kit changes; --cei
// runs another build's readers (e.g. one without decision 39).
import { spawn, type ChildProcess } from "node:child_process";
import { mkdirSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createInterface } from "node:readline";
import { fileURLToPath } from "node:url";
import { parseArgs } from "node:util";
import pg from "pg";
import { compileSnapshot } from "../compiler/compile.ts";
import { writeSample } from "../data/sample.ts";
import { openKeyStore } from "../server/meter/open.ts";
import { startKitNginx } from "../test/_support/kit-nginx.ts";
import { startPostgres } from "../test/_support/postgres.ts";

const { values: options } = parseArgs({ options: {
  baseline: { type: "boolean", default: false },
  cei: { type: "string", default: fileURLToPath(new URL("../bin/cei.js", import.meta.url)) },
  rate: { type: "string", default: "40" },
} });
const RATE = Number(options.rate);
const KEYS = 30;
const STOP_AT_S = 8;
const STOPPED_S = 12;
const LOAD_S = 32;
const CLIENT_TIMEOUT_MS = 10_000;
/** The kit's proxy_read_timeout. */
const PROXY_TIMEOUT_S = 5;
const PATH = "/v1/projects/feba-protocol";

interface Sent { at: number; key: number; status: number | "timeout" | "error"; requestId?: string; ms: number }

async function main(): Promise<boolean> {
  const work = mkdtempSync(join(tmpdir(), "cei-hung-reader-"));
  const cleanup: Array<() => unknown> = [() => rmSync(work, { recursive: true, force: true })];
  try {
    const postgres = await startPostgres();
    cleanup.unshift(() => postgres.remove());
    const meter = postgres.adminUrl;
    const store = await openKeyStore(meter, { mustExist: false });
    const keys = [];
    for (let i = 0; i < KEYS; i++) keys.push(await store.create({ tier: "internal", credits: 100_000 }, Date.now()));
    await store.close();

    const asOf = new Date();
    await writeSample({ outDir: join(work, "sample"), asOf, scale: 1 });
    const compiled = await compileSnapshot({ sourceDir: join(work, "sample"), outFile: join(work, "snapshot.db"), compiledAt: asOf, xSecret: "x".repeat(32) });
    if (!compiled.ok) throw new Error(compiled.problems.join("\n"));

    const readers = await Promise.all([0, 1, 2].map((index) => startReader(options.cei!, join(work, "snapshot.db"), meter, index)));
    cleanup.unshift(() => readers.forEach((reader) => { reader.child.kill("SIGCONT"); reader.child.kill("SIGKILL"); }));
    const nginxDir = join(work, "nginx");
    mkdirSync(nginxDir);
    const proxy = await startKitNginx(nginxDir, readers.map((reader) => reader.url), options.baseline ? usualSettings : undefined);
    cleanup.unshift(() => proxy.stop());

    const started = performance.now();
    const sent: Sent[] = [];
    const inFlight: Array<Promise<void>> = [];
    let n = 0;
    const timer = setInterval(() => {
      const at = (performance.now() - started) / 1000;
      if (at >= LOAD_S) return;
      const key = n++ % KEYS;
      inFlight.push(proxy.get(PATH, { authorization: `Bearer ${keys[key]!.key}` }, CLIENT_TIMEOUT_MS).then(
        (answer) => void sent.push({ at, key, status: answer.status, requestId: String(answer.headers["x-service-request-id"]), ms: answer.ms }),
        (error: Error) => void sent.push({ at, key, status: /no answer within/.test(error.message) ? "timeout" : "error", ms: CLIENT_TIMEOUT_MS }),
      ));
    }, 1000 / RATE);
    await sleep(STOP_AT_S * 1000);
    readers[0]!.child.kill("SIGSTOP");
    await sleep(STOPPED_S * 1000);
    readers[0]!.child.kill("SIGCONT");
    await sleep((LOAD_S - STOP_AT_S - STOPPED_S) * 1000);
    clearInterval(timer);
    await Promise.all(inFlight);
    // The resumed reader finishes what it found waiting.
    await sleep(3_000);

    const client = new pg.Client({ connectionString: meter });
    await client.connect();
    const { rows: charges } = await client.query<{ request_id: string; key_id: string }>("SELECT request_id, key_id FROM ledger WHERE kind = 'charge'");
    const { rows: [balance] } = await client.query<{ spent: number }>("SELECT sum(100000 - credits)::int AS spent FROM balances");
    await client.query("VACUUM ANALYZE ledger");
    const { rows: [size] } = await client.query<{ bytes: number }>("SELECT (pg_total_relation_size('ledger') / greatest(count(*), 1))::int AS bytes FROM ledger");
    console.log(`the ledger on PostgreSQL: ${size!.bytes} bytes per row, its index included`);
    await client.end();
    return report(sent, charges, balance!.spent, readers[0]!.log.join("\n"));
  } finally {
    for (const step of cleanup) await step();
  }
}

/** nginx as it is usually set up: round robin, default timeouts (60 s), a timeout retried on the next reader. */
function usualSettings(conf: string): string {
  return conf
    .replace(/\n\s*hash \$http_authorization consistent;/, "")
    .replace(/\n\s*proxy_(connect|send|read)_timeout [^;]+;/g, "")
    .replace(/proxy_next_upstream error;/, "proxy_next_upstream error timeout;");
}

function report(sent: Sent[], charges: Array<{ request_id: string }>, spent: number, hungLog: string): boolean {
  const phases: Array<[string, number, number]> = [
    ["before the stop", 1, STOP_AT_S],
    [`the stop's first ${PROXY_TIMEOUT_S} s (until the proxy's timeout takes the reader out)`, STOP_AT_S, STOP_AT_S + PROXY_TIMEOUT_S],
    ["the rest of the stop", STOP_AT_S + PROXY_TIMEOUT_S, STOP_AT_S + STOPPED_S],
    ["after it resumed", STOP_AT_S + STOPPED_S + 1, LOAD_S],
  ];
  const ok = sent.filter((s) => s.status === 200);
  console.log(`${options.baseline ? "baseline (nginx's usual settings)" : "the kit's nginx"}; readers: ${options.cei}`);
  console.log(`offered ${RATE} requests/s for ${LOAD_S} s over ${KEYS} keys; reader 1 of 3 stopped from ${STOP_AT_S} s to ${STOP_AT_S + STOPPED_S} s`);
  console.log("| phase | sent per second | 200 per second | 504 | client timeouts (10 s) | p50 / max ms of 200s |");
  console.log("|---|---|---|---|---|---|");
  for (const [name, from, to] of phases) {
    const inPhase = sent.filter((s) => s.at >= from && s.at < to);
    const good = inPhase.filter((s) => s.status === 200).map((s) => s.ms).sort((a, b) => a - b);
    const count = (status: Sent["status"]) => inPhase.filter((s) => s.status === status).length;
    console.log(`| ${name} | ${(inPhase.length / (to - from)).toFixed(1)} | ${(good.length / (to - from)).toFixed(1)} | ${count(504)} | ${count("timeout")} | ${Math.round(good[Math.floor(good.length / 2)] ?? 0)} / ${Math.round(good.at(-1) ?? 0)} |`);
  }
  const answered = new Set(ok.map((s) => s.requestId));
  const chargedIds = charges.map((row) => row.request_id);
  const twice = chargedIds.length - new Set(chargedIds).size;
  const unanswered = chargedIds.filter((id) => !answered.has(id)).length;
  const unbilled = [...answered].filter((id) => !chargedIds.includes(id!)).length;
  const closed = (hungLog.match(/"reason":"client_closed"/g) ?? []).length;
  const others = sent.length - ok.length;
  console.log(`answers: ${ok.length} × 200 of ${sent.length}; not 200: ${others} (${sent.filter((s) => s.status === 504).length} × 504, ${sent.filter((s) => s.status === "timeout").length} client timeouts, ${sent.filter((s) => s.status !== 200 && s.status !== 504 && s.status !== "timeout").length} other)`);
  console.log(`ledger: ${chargedIds.length} charges, ${spent} credits; charged twice: ${twice}; charged but not answered 200: ${unanswered}; answered 200 without a charge: ${unbilled}; the stopped reader logged ${closed} × client_closed`);
  // Measured against what was sent in the phase (a timer on a busy machine sends a little less than
  // asked), once the proxy has had its timeout to notice the stopped reader.
  const during = sent.filter((s) => s.at >= STOP_AT_S + PROXY_TIMEOUT_S && s.at < STOP_AT_S + STOPPED_S);
  const held = during.filter((s) => s.status === 200).length / Math.max(1, during.length);
  const checks: Array<[string, boolean]> = [
    ["no request charged twice", twice === 0],
    ["no request charged that was not answered 200", unanswered === 0],
    ["every 200 charged", unbilled === 0],
    ["credits spent equal the charges", spent === chargedIds.length],
    [`throughput held once the proxy took the stopped reader out (>= 95% of the requests sent answered 200: ${(100 * held).toFixed(1)}%)`, held >= 0.95],
  ];
  for (const [what, passed] of checks) console.log(`${passed ? "ok  " : "FAIL"} ${what}`);
  const failed = checks.filter(([, passed]) => !passed).length;
  console.log(`hung-reader: ${checks.length - failed} passed, ${failed} failed`);
  return failed === 0;
}

async function startReader(bin: string, snapshot: string, meter: string, index: number): Promise<{ url: string; child: ChildProcess; log: string[] }> {
  const child = spawn(process.execPath, [bin, "serve", "--snapshot", snapshot, "--meter", meter, "--port", "0", "--no-watch", "--trust-proxy", "127.0.0.1", "--max-connections-per-address", "512"], { stdio: ["ignore", "pipe", "pipe"] });
  const log: string[] = [];
  createInterface({ input: child.stderr! }).on("line", (line) => log.push(line));
  const url = await new Promise<string>((resolve, reject) => {
    createInterface({ input: child.stdout! }).on("line", (line) => {
      const match = /^cei serving .* on (http:\/\/127\.0\.0\.1:\d+)/.exec(line);
      if (match !== null) resolve(match[1]!);
    });
    child.once("exit", (code) => reject(new Error(`reader ${index} exited (${code}): ${log.join("\n")}`)));
  });
  return { url, child, log };
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

main().then((passed) => process.exit(passed ? 0 : 1), (error: unknown) => {
  console.error(error);
  process.exit(1);
});
