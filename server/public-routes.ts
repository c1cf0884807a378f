// The paths outside /v1 (decision 19): no key, never metered, `Cache-Control: no-store` and a
// request id like every response. They reveal nothing beyond the public contract and the loaded
// snapshot's content hash, as_of times and freshness (docs/api.md, "Health and readiness").
import { STATUS_CODES } from "node:http";
import { FastResponse } from "srvx/node";
import { z } from "zod";
import { holdings } from "../snapshot/curated.ts";
import { isServable, precomputedFreshness } from "../snapshot/freshness.ts";
import type { Meter } from "./meter/interface.ts";
import type { Route } from "./routes.ts";
import type { LoadedSnapshot } from "./serving.ts";

export interface PublicRequest {
  requestId: string;
  /** The snapshot being served; undefined when none is (shutting down). */
  snapshot: LoadedSnapshot | undefined;
  /** Whether the meter can settle requests (readiness, decision 40). */
  meter: Pick<Meter, "reachable">;
  now: number;
  /** The operations the app serves (an unreleased one is not among them, and never named). */
  routes: readonly Route[];
}

export interface PublicRoute {
  path: string;
  /** One line for the contract (docs/openapi.json). */
  summary: string;
  /** The body of each status the path answers, as the contract publishes it. */
  responses: Readonly<Record<number, { description: string; body: z.ZodType }>>;
  answer(request: PublicRequest): Response | Promise<Response>;
}

const isoTime = z.iso.datetime({ precision: 3 });
const health = z.strictObject({ status: z.literal("ok") });
const ready = z.strictObject({
  status: z.literal("ready"),
  snapshot: z.string().regex(/^[0-9a-f]{64}$/).describe("The content hash of the snapshot being served, as in `x-service-snapshot`."),
  precomputed: z.record(
    z.string(),
    z.strictObject({
      as_of: isoTime.nullable(),
      fresh_until: isoTime.nullable().describe("When the data stops being served; `null` when it has no bound or no `as_of`."),
      fresh: z.boolean().describe("Whether the operations built on it answer now."),
    }),
  ).describe("Each precomputed snapshot of the loaded file, by name."),
  // Decision 28: what the loaded snapshot's sources curate, and what it therefore does not offer.
  holds: z.strictObject({
    families: z.array(z.string()).describe("The families at least one source record of the loaded snapshot curates (`projects`, `tokens`, ...)."),
    precomputed: z.array(z.string()).describe("The precomputed snapshots at least one source record feeds (`market`, `fund_rankings`, ...), fresh or not."),
  }).describe("What the loaded snapshot holds (product decision 28)."),
  not_offered: z.array(z.strictObject({
    operation: z.string().describe("The operation id, as in the document's `operationId`."),
    method: z.enum(["GET", "POST"]),
    path: z.string().describe("The operation's path, e.g. `/v1/funds/rankings`."),
  })).describe("The operations no curated record feeds: each answers `404 NOT_FOUND` exactly like an unknown route until a snapshot that curates their data is published."),
});
/** Why a reader with a snapshot cannot serve (decision 40): the first that holds, in this order. */
const notReadyReasons = {
  meter_unavailable: "the meter cannot be reached (or stays locked), so no metered request can be answered",
  snapshot_stale: "every precomputed snapshot with a freshness bound is past it: a newer snapshot must be published",
} as const;
const notReady = ready.extend({
  status: z.literal("not_ready"),
  reason: z.enum(Object.keys(notReadyReasons) as [keyof typeof notReadyReasons]).describe(
    Object.entries(notReadyReasons).map(([reason, what]) => `\`${reason}\`: ${what}.`).join(" "),
  ),
});
const shuttingDown = z.strictObject({ status: z.literal("not_ready"), reason: z.literal("shutting_down") });

export const publicRoutes: readonly PublicRoute[] = [
  {
    path: "/healthz",
    summary: "Liveness: the process is up",
    responses: { 200: { description: "The process answers.", body: health } },
    answer: ({ requestId }) => respondPublic(requestId, 200, { status: "ok" }),
  },
  {
    path: "/readyz",
    summary: "Readiness: whether this server can answer, the snapshot being served and the freshness of each precomputed snapshot",
    responses: {
      200: { description: "A snapshot is loaded, the meter can be reached, and some precomputed data is fresh.", body: ready },
      503: {
        description: "Not able to serve: the meter cannot be reached or every bounded precomputed snapshot is stale (the same body, with the reason), or no snapshot is loaded (shutting down).",
        body: z.union([notReady, shuttingDown]),
      },
    },
    answer: readiness,
  },
];

/**
 * 200 with the loaded snapshot's hash and each precomputed snapshot's freshness; 503 with the same
 * body and the reason when this server cannot serve (decision 40), or with none loaded.
 */
async function readiness({ requestId, snapshot, meter, now, routes }: PublicRequest): Promise<Response> {
  if (snapshot === undefined) return respondPublic(requestId, 503, { status: "not_ready", reason: "shutting_down" });
  const precomputed: Record<string, { as_of: string | null; fresh_until: string | null; fresh: boolean }> = {};
  let bounded = 0;
  let fresh = 0;
  for (const [name, freshness] of Object.entries(precomputedFreshness(snapshot.snapshots))) {
    precomputed[name] = { ...freshness, fresh: isServable(name, freshness, now) };
    if (freshness.fresh_until === null) continue;
    bounded += 1;
    if (precomputed[name].fresh) fresh += 1;
  }
  const body = { status: "ready", snapshot: snapshot.contentHash, precomputed, ...offerings(snapshot, routes) };
  const reason: keyof typeof notReadyReasons | undefined = !(await meter.reachable()) ? "meter_unavailable" : bounded > 0 && fresh === 0 ? "snapshot_stale" : undefined;
  if (reason === undefined) return respondPublic(requestId, 200, body);
  return respondPublic(requestId, 503, { ...body, status: "not_ready", reason });
}

/** What the snapshot holds and the served operations it does not offer (decision 28), in route-table order. */
function offerings(snapshot: LoadedSnapshot, routes: readonly Route[]) {
  const notOffered = routes.filter((route) => snapshot.routes[route.operation] === undefined)
    .map((route) => ({ operation: route.operation, method: route.method, path: route.path.replace(/:(\w+)/g, "{$1}") }));
  return { holds: holdings(snapshot.curated), not_offered: notOffered };
}

export function respondPublic(requestId: string, status: number, body: unknown): Response {
  return new FastResponse(JSON.stringify(body), {
    status,
    statusText: STATUS_CODES[status],
    headers: { "content-type": "application/json; charset=utf-8", "cache-control": "no-store", "x-service-request-id": requestId },
  });
}
