// The service's Prometheus metrics (prom-client), in a registry of their own per app so that
// several apps in one process (tests) never share a series. They are served only by the separate
// metrics listener (metrics-listen.ts), never on the public port. docs/operations.md lists each.
import type { Server } from "node:http";
import { collectDefaultMetrics, Counter, Gauge, Histogram, Registry } from "prom-client";
import { ADDRESS_DROP_EVENT } from "./address-limits.ts";
import { asOfMs, precomputedFreshness } from "../snapshot/freshness.ts";
import type { MeterObserver } from "./meter/interface.ts";
import type { SwapOutcome } from "./observation-types.ts";
import type { Serving } from "./serving.ts";

/** Seconds; the API answers most requests in well under a millisecond, and a few search calls in tens. */
const LATENCY_BUCKETS = [0.000_25, 0.000_5, 0.001, 0.002_5, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5];
const BATCH_SIZE_BUCKETS = [1, 2, 4, 8, 16, 32, 64, 128, 256];
const BATCH_SECONDS_BUCKETS = [0.000_05, 0.000_1, 0.000_25, 0.000_5, 0.001, 0.002_5, 0.005, 0.01, 0.05, 0.25, 1];

export class Metrics {
  readonly registry = new Registry();
  readonly requests = new Counter({
    name: "cei_requests_total", help: "Requests answered, by operation and HTTP status.",
    labelNames: ["operation", "status"] as const, registers: [this.registry],
  });
  readonly latency = new Histogram({
    name: "cei_request_duration_seconds", help: "Time from routing to the response being handed to the listener, by operation.",
    labelNames: ["operation"] as const, buckets: LATENCY_BUCKETS, registers: [this.registry],
  });
  readonly credits = new Counter({
    name: "cei_credits_charged_total", help: "Credits charged (committed in the meter), by operation.",
    labelNames: ["operation"] as const, registers: [this.registry],
  });
  readonly refused = new Counter({
    name: "cei_requests_refused_total",
    help: "Requests refused, by reason: an error code of the API (lower case), or a listener answer (request_timeout, headers_too_large, ...), or max_connections.",
    labelNames: ["reason"] as const, registers: [this.registry],
  });
  readonly meterBatchSize = new Histogram({
    name: "cei_meter_batch_jobs", help: "Requests in one meter transaction (SQLite: settled from admission to charge; PostgreSQL: one admission or charge statement).",
    buckets: BATCH_SIZE_BUCKETS, registers: [this.registry],
  });
  readonly meterBatchDuration = new Histogram({
    name: "cei_meter_batch_duration_seconds", help: "Time of one meter transaction (SQLite: held on the event loop; PostgreSQL: the statement's round trip).",
    buckets: BATCH_SECONDS_BUCKETS, registers: [this.registry],
  });
  readonly meterErrors = new Counter({
    name: "cei_meter_errors_total",
    help: "Requests the meter failed: busy = locked by another process or transaction too long, unreachable = no connection to PostgreSQL, failed = anything else.",
    labelNames: ["kind"] as const, registers: [this.registry],
  });
  readonly swaps = new Counter({
    name: "cei_snapshot_swaps_total", help: "Attempts to swap in a new snapshot, by outcome (swapped, refused).",
    labelNames: ["outcome"] as const, registers: [this.registry],
  });

  constructor(options: { defaultMetrics?: boolean } = {}) {
    if (options.defaultMetrics !== false) collectDefaultMetrics({ register: this.registry });
  }

  /** The meter's transactions, counted into this registry (Meter.open's `observer`). */
  readonly meterObserver: MeterObserver = {
    batch: (jobs, seconds) => {
      this.meterBatchSize.observe(jobs);
      this.meterBatchDuration.observe(seconds);
    },
    failed: (kind) => this.meterErrors.inc({ kind }),
  };

  swapped(outcome: SwapOutcome): void {
    if (outcome !== "unchanged") this.swaps.inc({ outcome });
  }

  /** Age and time left of each precomputed snapshot in the served file, computed at every scrape. */
  watchServing(serving: Serving, now: () => number): void {
    const series = (collect: (name: string, asOf: number, freshUntil: number | null) => number | null) =>
      function (this: Gauge<"precomputed" | "snapshot">) {
        this.reset();
        if (!serving.ready) return;
        const snapshot = serving.acquire();
        try {
          for (const [name, { as_of, fresh_until }] of Object.entries(precomputedFreshness(snapshot.snapshots))) {
            if (as_of === null) continue;
            const value = collect(name, asOfMs(as_of), fresh_until === null ? null : Date.parse(fresh_until));
            if (value !== null) this.set({ precomputed: name, snapshot: snapshot.contentHash }, value);
          }
        } finally {
          serving.release(snapshot);
        }
      };
    new Gauge({
      name: "cei_snapshot_age_seconds", help: "Seconds since the as_of of each precomputed snapshot (trending, market, rankings) of the served file.",
      labelNames: ["precomputed", "snapshot"] as const, registers: [this.registry],
      collect: series((_name, asOf) => (now() - asOf) / 1000),
    });
    new Gauge({
      name: "cei_snapshot_seconds_until_stale",
      help: "Seconds until each precomputed snapshot of the served file may no longer be served (negative: stale); absent for ones without a bound.",
      labelNames: ["precomputed", "snapshot"] as const, registers: [this.registry],
      collect: series((_name, _asOf, freshUntil) => (freshUntil === null ? null : (freshUntil - now()) / 1000)),
    });
  }

  /** Log lines dropped because the log's reader did not take them (a stalled or closed stderr), read at every scrape. */
  watchLog(log: { droppedLines(): number }): void {
    let counted = 0;
    new Counter({
      name: "cei_log_lines_dropped_total",
      help: "Log lines dropped because the reader of stderr did not take them in time (more than 4 MiB waiting) or had gone.",
      registers: [this.registry],
      collect() {
        const dropped = log.droppedLines();
        this.inc(dropped - counted);
        counted = dropped;
      },
    });
  }

  /** Open connections of the public listener, read at every scrape. */
  watchServer(server: Server): void {
    new Gauge({
      name: "cei_open_connections", help: "Connections open on the public listener.", registers: [this.registry],
      async collect() {
        const open = await new Promise<number>((resolve) => server.getConnections((error, count) => resolve(error ? 0 : count)));
        this.set(open);
      },
    });
    server.on("drop", () => this.refused.inc({ reason: "max_connections" }));
    server.on(ADDRESS_DROP_EVENT, () => this.refused.inc({ reason: "max_connections_per_address" }));
  }
}
