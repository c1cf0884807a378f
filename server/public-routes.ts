// The paths outside /v1 (decision 19): no key, never metered, `Cache-Control: no-store` and a
// request id like every response. They reveal nothing beyond the public contract and the loaded
// snapshot's content hash, as_of times and freshness (docs/api.md, "Health and readiness").
import { STATUS_CODES } from "node:http";
import { FastResponse } from "srvx/node";
import { isServable, precomputedFreshness } from "./freshness.ts";
import type { LoadedSnapshot } from "./serving.ts";

export interface PublicRequest {
  requestId: string;
  /** The snapshot being served; undefined when none is (shutting down). */
  snapshot: LoadedSnapshot | undefined;
  now: number;
}

export interface PublicRoute {
  path: string;
  answer(request: PublicRequest): Response;
}

export const publicRoutes: readonly PublicRoute[] = [
  { path: "/healthz", answer: ({ requestId }) => respondPublic(requestId, 200, { status: "ok" }) },
  { path: "/readyz", answer: readiness },
];

/** 200 with the loaded snapshot's hash and each precomputed snapshot's freshness; 503 with none loaded. */
function readiness({ requestId, snapshot, now }: PublicRequest): Response {
  if (snapshot === undefined) return respondPublic(requestId, 503, { status: "not_ready" });
  const precomputed: Record<string, { as_of: string | null; fresh_until: string | null; fresh: boolean }> = {};
  for (const [name, freshness] of Object.entries(precomputedFreshness(snapshot.snapshots))) {
    precomputed[name] = { ...freshness, fresh: isServable(name, freshness, now) };
  }
  return respondPublic(requestId, 200, { status: "ready", snapshot: snapshot.contentHash, precomputed });
}

export function respondPublic(requestId: string, status: number, body: unknown): Response {
  return new FastResponse(JSON.stringify(body), {
    status,
    statusText: STATUS_CODES[status],
    headers: { "content-type": "application/json; charset=utf-8", "cache-control": "no-store", "x-service-request-id": requestId },
  });
}
