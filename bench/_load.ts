// One load run with autocannon: the same settings for every side of a comparison. Latency
// percentiles are computed here from every response's own time (autocannon's histogram rounds to
// whole milliseconds, too coarse for sub-millisecond loopback answers).
import autocannon from "autocannon";

export interface LoadRequest {
  method: "GET" | "POST";
  path: string;
  headers?: Record<string, string>;
  body?: string;
}

export interface LoadResult {
  requestsPerSecond: number;
  p50Ms: number;
  p99Ms: number;
  total: number;
  /** Responses by status code, e.g. { "200": 9000, "404": 1000 }. */
  statuses: Record<string, number>;
  errors: number;
  /** CPU the server process used per answered request, when the caller measured it. */
  serverCpuUsPerRequest?: number;
}

export const LOAD_SETTINGS = { connections: 32, pipelining: 1 } as const;

/**
 * Paced load for latency: a fixed offered rate well below every server's capacity, so that the
 * latency measures the time to serve a request rather than the time spent queueing for a busy core.
 */
export const PACED_SETTINGS = { connections: 8, requestsPerSecond: 1_000 } as const;

export async function runLoad(
  baseUrl: string,
  requests: readonly LoadRequest[],
  durationSeconds: number,
  paced?: { connections: number; requestsPerSecond?: number },
): Promise<LoadResult> {
  const latencies: number[] = [];
  const statuses: Record<string, number> = {};
  const result = await new Promise<autocannon.Result>((resolve, reject) => {
    const instance = autocannon({
      url: baseUrl,
      connections: paced?.connections ?? LOAD_SETTINGS.connections,
      pipelining: LOAD_SETTINGS.pipelining,
      duration: durationSeconds,
      ...(paced?.requestsPerSecond === undefined ? {} : { overallRate: paced.requestsPerSecond }),
      requests: requests.map((r) => ({ method: r.method, path: r.path, headers: r.headers, body: r.body })),
    }, (error, done) => (error ? reject(error as Error) : resolve(done)));
    instance.on("response", (_client, statusCode, _bytes, responseTimeMs) => {
      latencies.push(responseTimeMs);
      statuses[statusCode] = (statuses[statusCode] ?? 0) + 1;
    });
  });
  const seconds = (result.finish.getTime() - result.start.getTime()) / 1000;
  latencies.sort((a, b) => a - b);
  return {
    requestsPerSecond: latencies.length / seconds,
    p50Ms: percentile(latencies, 0.5),
    p99Ms: percentile(latencies, 0.99),
    total: latencies.length,
    statuses,
    errors: result.errors + result.timeouts,
  };
}

/** Nearest-rank percentile of an ascending array. */
export function percentile(sorted: readonly number[], p: number): number {
  if (sorted.length === 0) return Number.NaN;
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil(p * sorted.length) - 1))]!;
}

/** The middle value, or the mean of the two middle values of an even count. */
export function median(values: readonly number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = sorted.length >> 1;
  return sorted.length % 2 === 1 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2;
}

/**
 * `items` started at the round's own place (round 1 as given, round 2 from the second item, ...),
 * so that over the rounds no item is always measured first (colder) or last (after the most load).
 */
export function rotated<T>(items: readonly T[], round: number): T[] {
  const start = (round - 1) % Math.max(1, items.length);
  return [...items.slice(start), ...items.slice(0, start)];
}
