// The h3 app: the public paths (public-routes.ts), one route per operation from routes.ts,
// everything else answered by the pipeline's 404, and any error that escapes rendered as the JSON
// envelope. Each request is answered wholly from the snapshot current when it arrived.
import { H3, type H3Event } from "h3";
import { ApiError } from "./errors.ts";
import { errorsOnStderr, type Logger } from "./log.ts";
import type { Meter } from "./meter/interface.ts";
import type { Metrics } from "./metrics.ts";
import { publicRoutes } from "./public-routes.ts";
import { routes, type Route } from "./routes.ts";
import type { LoadedSnapshot, Serving } from "./serving.ts";
import { newTrace, requestObserver, type RequestObserver } from "./observe.ts";
import type { RequestTrace } from "./observation-types.ts";
import { Pipeline } from "./_pipeline.ts";
import { CLIENT_CLOSED, clientConnection, newRequestId, respondError } from "./_respond.ts";
import { registerReference } from "./public/reference.ts";
import { requestClient } from "./address-limits.ts";

/** Names the snapshot that answered, on every response (docs/api.md). */
export const SNAPSHOT_HEADER = "x-service-snapshot";

export interface AppOptions {
  /** The snapshot being served, swapped in place when a new one is published (serving.ts). */
  serving: Serving;
  meter: Meter;
  /** ms since the epoch; defaults to Date.now. Operations and envelopes read no other clock. */
  now?: () => number;
  /**
   * Registers the hidden operation 10 (GET /v1/projects/trending). Off unless release-approved; off,
   * the path answers exactly as an unknown project slug does.
   */
  releaseTrendingProjects?: boolean;
  /**
   * Parse every success body with its strict response schema before sending it. Tests turn it on;
   * production leaves it off by default because the compiled snapshot already fixes the shapes and
   * the check costs measurable throughput (see docs/api.md, "Implementation notes").
   */
  checkResponses?: boolean;
  /**
   * One line per request at info, unexpected errors at error (docs/operations.md, "Logs"). Whether
   * info is enabled is read once, here. Default: errors only, on stderr.
   */
  logger?: Logger;
  /** Counts every request into this registry; the app never serves it (metrics-listen.ts does). */
  metrics?: Metrics;
  /**
   * Load the reference page's compressed assets now rather than on the first request, and log
   * whether they came from the build (servers do; tests that never ask for the page do not).
   */
  warmReference?: boolean;
}

export function createApp(options: AppOptions): H3 {
  const now = options.now ?? Date.now;
  const logger = options.logger ?? errorsOnStderr();
  const pipeline = new Pipeline({ meter: options.meter, now, logger, checkResponses: options.checkResponses ?? false });
  const serving = options.serving;
  const released: Route[] = [];
  const observer = requestObserver(logger, options.metrics);
  const answering: Answering = { serving, observer, logger, now };

  const app = new H3({
    // Malformed percent-encoding reaches the pipeline (422 on the parameter), not h3's bare 400.
    allowMalformedURL: true,
    silent: true,
    onError: (error) => _renderUnexpected(error, logger, now),
  });

  for (const route of publicRoutes) {
    const operation = route.path.slice(1);
    app.get(route.path, (event) => {
      const trace = newTrace(operation);
      return serving.ready
        ? _fromOneSnapshot(event, trace, answering, (snapshot) => route.answer({ requestId: trace.requestId, snapshot, meter: options.meter, now: now(), routes: released }))
        : _withoutSnapshot(event, trace, answering, () => route.answer({ requestId: trace.requestId, snapshot: undefined, meter: options.meter, now: now(), routes: released }));
    });
  }

  for (const route of routes) {
    // Unreleased, /v1/projects/trending is get_project with slug "trending" (see Route.release).
    if (route.release === "trending_projects" && options.releaseTrendingProjects !== true) continue;
    if (route.operation !== route.handler.id) throw new Error(`route ${route.path} names ${route.operation} but serves ${route.handler.id}`);
    released.push(route);
    app.on(route.method, route.path, (event) => {
      const trace = newTrace(route.operation);
      return _fromOneSnapshot(event, trace, answering, (snapshot) => pipeline.handle(event, trace, snapshot.routes[route.operation], event.context.params));
    });
  }

  const reference = registerReference(
    (path, answer) => app.get(path, (event) => {
      const trace = newTrace("reference");
      const headers = event.req.headers;
      const request = {
        acceptEncoding: headers.get("accept-encoding") ?? undefined,
        ifNoneMatch: headers.get("if-none-match") ?? undefined,
        snapshot: serving.contentHash,
      };
      return _withoutSnapshot(event, trace, answering, () => answer(trace.requestId, request));
    }),
    { releaseTrendingProjects: options.releaseTrendingProjects === true },
  );
  if (options.warmReference === true) {
    void reference.warm().then(({ built }) => {
      if (built) logger.info({ event: "docs_assets", built }, "cei: the reference page's assets are the build's (dist/docs), precompressed");
      else logger.info({ event: "docs_assets", built }, "cei: no current build of the reference page's assets in dist/docs (npm run build): compressed them at start-up, in memory");
    }, (error: unknown) => logger.error({ event: "docs_assets_failed", err: error }, "cei: loading the reference page's assets failed"));
  }

  app.all("/**", (event) => {
    // An empty path segment where a parameter belongs is that parameter out of range (decision 7).
    const empty = _matchEmptyParameter(released, event.url.pathname);
    const trace = newTrace(empty === undefined ? "unmatched" : empty.route.operation);
    return _fromOneSnapshot(event, trace, answering, (snapshot) =>
      empty === undefined ? pipeline.notFound(event, trace) : pipeline.handle(event, trace, snapshot.routes[empty.route.operation], empty.params),
    );
  });
  return app;
}

/** What every handler needs to answer and be observed. */
interface Answering {
  serving: Serving;
  observer: RequestObserver | undefined;
  logger: Logger;
  now: () => number;
}

/**
 * Leases the current snapshot for the whole request, names it in the response, and hands it back
 * once answered (the body is a string by then, so nothing reads the snapshot afterwards).
 */
async function _fromOneSnapshot(
  event: H3Event, trace: RequestTrace, { serving, observer, logger, now }: Answering,
  answer: (snapshot: LoadedSnapshot) => Response | Promise<Response>,
): Promise<Response> {
  const started = observer === undefined ? 0 : _observed(event, trace);
  const snapshot = serving.acquire();
  // On node:http the header goes on the ServerResponse, where srvx's writeHead merges it: no
  // Headers object is built per response. Elsewhere (app.request in tests) on the Response itself.
  const nodeResponse = event.runtime?.node?.res;
  nodeResponse?.setHeader(SNAPSHOT_HEADER, snapshot.contentHash);
  try {
    let response: Response;
    try {
      response = await answer(snapshot);
    } catch (error) {
      response = _unexpected(error, trace, logger, now);
    }
    if (nodeResponse === undefined) response.headers.set(SNAPSHOT_HEADER, snapshot.contentHash);
    // A client gone before its answer is handed over receives nothing: logged as such (decision 39).
    observer?.answered(trace, clientConnection(event)?.() === true ? CLIENT_CLOSED : response.status, snapshot.contentHash, started);
    return response;
  } finally {
    serving.release(snapshot);
  }
}

/** The answers that read no snapshot: the reference pages, and health while none is loaded. */
async function _withoutSnapshot(event: H3Event, trace: RequestTrace, { observer, logger, now }: Answering, answer: () => Response | Promise<Response>): Promise<Response> {
  const started = observer === undefined ? 0 : _observed(event, trace);
  let response: Response;
  try {
    response = await answer();
  } catch (error) {
    response = _unexpected(error, trace, logger, now);
  }
  observer?.answered(trace, response.status, undefined, started);
  return response;
}

/** Notes the client on an observed request's trace; returns when it was routed. */
function _observed(event: H3Event, trace: RequestTrace): number {
  const request = event.runtime?.node?.req;
  if (request !== undefined) trace.client = requestClient(request);
  return performance.now();
}

function _unexpected(error: unknown, trace: RequestTrace, logger: Logger, now: () => number): Response {
  logger.error({ err: error, request_id: trace.requestId, operation: trace.operation }, "unexpected error");
  trace.code = "INTERNAL_ERROR";
  return respondError(trace.requestId, new ApiError("INTERNAL_ERROR"), {}, now());
}

/** `/v1/projects//features` → get_project_features with slug "" (which then fails its length rule). */
function _matchEmptyParameter(released: readonly Route[], pathname: string): { route: Route; params: Record<string, string> } | undefined {
  if (!pathname.includes("//") && !pathname.endsWith("/")) return undefined;
  const segments = pathname.split("/");
  for (const route of released) {
    const template = route.path.split("/");
    if (template.length !== segments.length) continue;
    const params: Record<string, string> = {};
    let matches = true;
    let emptyParameter = false;
    for (let i = 0; i < template.length && matches; i++) {
      const part = template[i]!;
      const actual = segments[i]!;
      if (part.startsWith(":")) {
        params[part.slice(1)] = actual;
        if (actual === "") emptyParameter = true;
      } else {
        matches = part === actual;
      }
    }
    if (matches && emptyParameter) return { route, params };
  }
  return undefined;
}

/** An error outside every handler (h3 itself): logged with the request id it is answered with. */
function _renderUnexpected(error: unknown, logger: Logger, now: () => number) {
  const requestId = newRequestId();
  logger.error({ err: error, request_id: requestId }, "unexpected error");
  return respondError(requestId, new ApiError("INTERNAL_ERROR"), {}, now());
}
