// The request log's own cost, measured in one process so that the machine's other load falls on
// both sides alike: the same app answers GET /v1/projects/{slug} through app.request (no HTTP),
// with the log at warn (no request line) and at info (one line per request to /dev/null through
// the same asynchronous destination as `cei serve`), and with the metrics counted too; the variants alternate in
// small batches and the CPU (user + system) of each batch is summed per variant.
import { rmSync } from "node:fs";
import { createApp } from "../server/app.ts";
import { asyncDestination, createLogger } from "../server/log.ts";
import { SqliteMeter } from "../server/meter/sqlite/meter.ts";
import { Metrics } from "../server/metrics.ts";
import { Serving } from "../server/serving.ts";
import { createBenchMeter } from "./_children.ts";
import { buildWorkload } from "./_workload.ts";

const BATCH = 500;
const VARIANTS = ["log off", "log on", "log on + metrics"] as const;
export type InProcessVariant = (typeof VARIANTS)[number];

export async function logCostInProcess(snapshot: string, batches: number): Promise<Record<InProcessVariant, number>> {
  const { meterFile, key } = createBenchMeter();
  const serving = await Serving.open(snapshot, { log: () => undefined });
  const metrics = new Metrics();
  const meters = VARIANTS.map((variant) => SqliteMeter.open(meterFile, variant === "log on + metrics" ? { observer: metrics.meterObserver } : {}));
  const destination = asyncDestination("/dev/null");
  const apps = VARIANTS.map((variant, i) =>
    createApp({
      serving, meter: meters[i]!,
      logger: createLogger(variant === "log off" ? "warn" : "info", destination),
      ...(variant === "log on + metrics" ? { metrics } : {}),
    }),
  );
  const request = buildWorkload(snapshot, key).find((r) => r.operation === "get_project")!;
  const cpu = [0, 0, 0];
  try {
    for (let batch = -2; batch < batches; batch++) {
      for (let i = 0; i < apps.length; i++) {
        const started = process.cpuUsage();
        for (let n = 0; n < BATCH; n++) {
          const response = await apps[i]!.request(request.path, { headers: request.headers });
          if (response.status !== 200) throw new Error(`observe in-process: ${response.status} ${await response.text()}`);
          await response.text();
        }
        const used = process.cpuUsage(started);
        // The first two rounds warm the JIT and are not counted.
        if (batch >= 0) cpu[i]! += used.user + used.system;
      }
    }
  } finally {
    await destination.close();
    for (const meter of meters) meter.close();
    serving.close();
    for (const suffix of ["", "-wal", "-shm"]) rmSync(meterFile + suffix, { force: true });
  }
  return Object.fromEntries(VARIANTS.map((variant, i) => [variant, cpu[i]! / (batches * BATCH)])) as Record<InProcessVariant, number>;
}
