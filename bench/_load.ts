// One load run with autocannon: the same settings for every side of a comparison.
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
  non2xx: number;
  errors: number;
}

export const LOAD_SETTINGS = { connections: 32, pipelining: 1, durationSeconds: 6 } as const;

export async function runLoad(baseUrl: string, requests: LoadRequest[], durationSeconds: number = LOAD_SETTINGS.durationSeconds): Promise<LoadResult> {
  const result = await autocannon({
    url: baseUrl,
    connections: LOAD_SETTINGS.connections,
    pipelining: LOAD_SETTINGS.pipelining,
    duration: durationSeconds,
    requests: requests.map((r) => ({ method: r.method, path: r.path, headers: r.headers, body: r.body })),
  });
  return {
    requestsPerSecond: result.requests.average,
    p50Ms: result.latency.p50,
    p99Ms: result.latency.p99,
    total: result.requests.total,
    non2xx: result.non2xx,
    errors: result.errors + result.timeouts,
  };
}
