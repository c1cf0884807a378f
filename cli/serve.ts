// `cei serve`: the snapshot (read-only) and the meter (a SQLite file, or a PostgreSQL database shared by many readers), over HTTP.
import type { Command } from "commander";
import { createApp } from "../server/app.ts";
import { closeOnSignals, startServer } from "../server/listen.ts";
import { startListhenServer } from "../server/listen-listhen.ts";
import { listenDefaults, parseListenLimits, type ListenLimitOptions } from "../server/listen-limits.ts";
import { createServiceLog, logLevels, parseLogLevel, type Logger, type ServiceLog } from "../server/log.ts";
import { isPostgresUrl, openMeter, redactUrl } from "../server/meter/open.ts";
import type { Meter } from "../server/meter/interface.ts";
import { Metrics } from "../server/metrics.ts";
import { startMetricsServer } from "../server/metrics-listen.ts";
import { Serving } from "../server/serving.ts";
import { parseTrustedProxies } from "../server/address-limits.ts";
import { listenerLog, servingLog } from "../server/observe.ts";
import { readXSecret } from "./compile.ts";

interface ServeOptions extends ListenLimitOptions {
  snapshot: string;
  meter: string;
  port: string;
  host: string;
  releaseTrendingProjects?: boolean;
  watch: boolean;
  meterSync?: string;
  xSecretFile?: string;
  logLevel: string;
  metricsPort?: string;
  metricsHost: string;
  listener: string;
  trustProxy: string[];
}

function _port(value: string, flag = "port"): number {
  const port = Number(value);
  if (!/^[0-9]{1,5}$/.test(value) || port > 65_535) throw new Error(`--${flag} must be 0-65535, got "${value}"`);
  return port;
}

/**
 * The compiler's secret, read as `cei compile` reads it; the handle-search key is derived from it
 * and is not in the snapshot (decision 24). Serve never creates a secret: one it made up could not
 * match the snapshot's handle index, so without one it says so and serves without handle search.
 */
function _xSecret(file: string | undefined, logger: Logger): string | undefined {
  const secret = readXSecret(file);
  if (secret === undefined) {
    logger.warn({ event: "no_x_secret" }, "cei serve: no X secret (--x-secret-file or CEI_X_SECRET): search will find no X account by handle");
  }
  return secret;
}

export function registerServe(program: Command): void {
  program
    .command("serve")
    .description("Serve the API from a compiled snapshot, metering every request in the meter (a SQLite file or PostgreSQL).")
    .requiredOption("--snapshot <file>", "compiled snapshot (cei compile); opened read-only")
    .requiredOption("--meter <file|url>", "meter of keys, credits and rate windows: a SQLite file (created if missing), or a postgres:// URL shared by any number of readers (tables created on first use)")
    .option("--port <n>", "TCP port", "8787")
    .option("--host <addr>", "address to listen on", "127.0.0.1")
    .option(
      "--meter-sync <mode>",
      "SQLite meter durability: normal = every answered charge survives a crash of the process (default); full = also a power loss, at about 2-3x the CPU per request (also: CEI_METER_SYNC). PostgreSQL: the server's synchronous_commit decides",
    )
    .option("--headers-timeout <ms>", "a request's headers must arrive within this", String(listenDefaults.headersTimeoutMs))
    .option("--request-timeout <ms>", "a whole request (headers and body) must arrive within this", String(listenDefaults.requestTimeoutMs))
    .option("--keep-alive-timeout <ms>", "an idle keep-alive connection is closed after this", String(listenDefaults.keepAliveTimeoutMs))
    .option("--max-connections <n>", "connections beyond this are closed at once", String(listenDefaults.maxConnections))
    .option(
      "--max-connections-per-address <n>",
      "connections from one peer address beyond this are closed at once (behind a proxy, the proxy is one address: docs/operations.md)",
      String(listenDefaults.maxConnectionsPerAddress),
    )
    .option(
      "--trust-proxy <addr>",
      "a reverse proxy's address or CIDR range (repeatable, or a comma list): from it, the client is X-Forwarded-For's last untrusted hop",
      (value: string, previous: string[]) => [...previous, value],
      [] as string[],
    )
    .option("--shutdown-timeout <ms>", "on SIGTERM/SIGINT, requests in flight get this long before they are cut off (exit 1)", String(listenDefaults.shutdownTimeoutMs))
    .option(
      "--x-secret-file <file>",
      "the X secret the snapshot was compiled with (also: env CEI_X_SECRET); without it, search finds no X account by handle",
    )
    .option("--log-level <level>", `log lines at this level and above, on stderr: ${logLevels.join(", ")} (info: one line per request)`, "info")
    .option("--metrics-port <n>", "serve Prometheus metrics at GET /metrics on this port (never on --port); off unless given")
    .option("--metrics-host <addr>", "address of the metrics listener", "127.0.0.1")
    .option("--listener <kind>", "listhen (the default) or node (node:http); both apply the same limits (docs/performance.md compares them)", "listhen")
    .option("--no-watch", "swap in a new snapshot only on SIGHUP, not when the file at --snapshot is replaced (for file systems without change events)")
    .option(
      "--release-trending-projects",
      "serve the release-gated GET /v1/projects/trending (also: CEI_RELEASE_TRENDING_PROJECTS=1)",
    )
    .action(async (options: ServeOptions) => {
      let limits, port, metricsPort, trustProxy, log: ServiceLog;
      try {
        limits = parseListenLimits(options);
        trustProxy = options.trustProxy.length === 0 ? undefined : parseTrustedProxies(options.trustProxy).list;
        port = _port(options.port);
        metricsPort = options.metricsPort === undefined ? undefined : _port(options.metricsPort, "metrics-port");
        if (metricsPort !== undefined && metricsPort !== 0 && metricsPort === port) throw new Error("--metrics-port must differ from --port: the metrics are never served on the public port");
        if (options.listener !== "node" && options.listener !== "listhen") throw new Error(`--listener must be node or listhen, got "${options.listener}"`);
        log = createServiceLog(parseLogLevel(options.logLevel));
      } catch (error) {
        program.error(`cei serve: ${error instanceof Error ? error.message : String(error)}`, { exitCode: 1 });
      }
      const { logger } = log;
      const metrics = metricsPort === undefined ? undefined : new Metrics();
      let xSecret: string | undefined;
      try {
        xSecret = _xSecret(options.xSecretFile, logger);
      } catch (error) {
        program.error(`cei serve: --x-secret-file: ${error instanceof Error ? error.message : String(error)}`, { exitCode: 1 });
      }
      let serving: Serving;
      // The first snapshot serves at once; its integrity check (every page) finishes beside it.
      let resolveFirstCheck: (problems: string[]) => void = () => undefined;
      const firstCheck = new Promise<string[]>((resolve) => (resolveFirstCheck = resolve));
      try {
        serving = await Serving.open(options.snapshot, {
          log: servingLog(logger, metrics), checkFirstBeside: (problems) => resolveFirstCheck(problems), ...(xSecret === undefined ? {} : { xSecret }),
        });
      } catch (error) {
        program.error(`cei serve: ${error instanceof Error ? error.message : String(error)}`, { exitCode: 1 });
      }
      const meterSync = (options.meterSync ?? process.env.CEI_METER_SYNC ?? "normal").toUpperCase();
      if (meterSync !== "FULL" && meterSync !== "NORMAL") {
        program.error(`cei serve: --meter-sync must be full or normal, got "${options.meterSync ?? process.env.CEI_METER_SYNC}"`, { exitCode: 1 });
      }
      if (options.meterSync !== undefined && isPostgresUrl(options.meter)) {
        program.error("cei serve: --meter-sync applies to a SQLite meter file; a PostgreSQL meter's durability is the server's synchronous_commit", { exitCode: 1 });
      }
      let meter: Meter;
      try {
        meter = await openMeter(options.meter, {
          synchronous: meterSync, observer: metrics?.meterObserver, warn: (event, message, err) => logger.warn({ event, err }, message),
        });
      } catch (error) {
        program.error(`cei serve: cannot open meter "${redactUrl(options.meter)}": ${error instanceof Error ? error.message : String(error)}`, { exitCode: 1 });
      }
      const releaseTrendingProjects =
        options.releaseTrendingProjects === true || process.env.CEI_RELEASE_TRENDING_PROJECTS === "1";
      const app = createApp({ serving, meter, releaseTrendingProjects, logger, metrics, warmReference: true });
      const listenOptions = { port, host: options.host, ...limits, trustProxy, snapshot: () => serving.contentHash, onListenerAnswer: listenerLog(logger, metrics) };
      const running = options.listener === "listhen" ? await startListhenServer(app, listenOptions) : await startServer(app, listenOptions);
      // listhen moves to a free port when the asked one is taken; a server must not.
      if (port !== 0 && !running.url.endsWith(`:${port}`)) {
        await running.close();
        program.error(`cei serve: port ${port} is taken`, { exitCode: 1 });
      }
      const closing: Array<{ close(): unknown }> = [meter, serving];
      let metricsUrl: string | undefined;
      if (metrics !== undefined) {
        metrics.watchServing(serving, Date.now);
        metrics.watchServer(running.server);
        metrics.watchLog(log);
        let metricsListener;
        try {
          metricsListener = await startMetricsServer(metrics, { port: metricsPort, host: options.metricsHost, ...limits });
        } catch (error) {
          await running.close();
          await log.close();
          program.error(`cei serve: --metrics-port: ${error instanceof Error ? error.message : String(error)}`, { exitCode: 1 });
        }
        metricsUrl = `${metricsListener.url}/metrics`;
        closing.push(metricsListener);
      }
      logger.info(
        { event: "listening", url: running.url, snapshot: serving.contentHash, file: options.snapshot, metrics_url: metricsUrl },
        `cei serve: listening on ${running.url}` + (metricsUrl === undefined ? "" : `, metrics on ${metricsUrl}`),
      );
      // Every start-up line is written before the ready line that scripts wait for (a reader that
      // does not read is waited for at most a second).
      await log.flush();
      process.stdout.write(
        `cei serving ${options.snapshot} (snapshot ${serving.contentHash}) on ${running.url}` +
          (releaseTrendingProjects ? " (trending projects released)" : "") + "\n",
      );
      // Decision 23: publishing is a rename over the path (seen by the watch) or a SIGHUP after it.
      if (options.watch) serving.watch();
      process.on("SIGHUP", () => {
        void serving.swap().then((outcome) => {
          if (outcome === "unchanged") logger.info({ event: "snapshot_unchanged", file: options.snapshot }, `cei serve: SIGHUP: ${options.snapshot} is the snapshot already served`);
        });
      });
      const stop = closeOnSignals(running, closing, log);
      const first = serving.contentHash;
      void firstCheck.then((problems) => {
        if (problems.length === 0 || serving.contentHash !== first) {
          // A snapshot swapped in meanwhile was checked before it served; the first one is retired.
          if (problems.length === 0) logger.info({ event: "snapshot_checked", snapshot: first, file: options.snapshot }, `cei serve: snapshot ${first} passed its integrity check`);
          return;
        }
        const reason = `it is damaged (${problems.slice(0, 3).join("; ")})`;
        logger.fatal({ event: "snapshot_damaged", file: options.snapshot, reason }, `cei serve: ${options.snapshot}: ${reason}; stopping`);
        stop();
      });
    });
}
