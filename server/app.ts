// The h3 app: one route per operation from routes.ts, everything else answered by the pipeline's
// 404, and any error that escapes rendered as the JSON envelope.
import type Database from "better-sqlite3";
import { H3, type H3Event } from "h3";
import { ApiError } from "./errors.ts";
import type { Meter } from "./meter/meter.ts";
import { routes, type Route } from "./routes.ts";
import { Pipeline, serveRoute, type ServedRoute } from "./_pipeline.ts";
import { newRequestId, respondError } from "./_respond.ts";
import { registerReference } from "./public/reference.ts";

export interface AppOptions {
  /** The compiled snapshot, opened read-only (see openSnapshot). */
  snapshot: Database.Database;
  meter: Meter;
  /** ms since the epoch; defaults to Date.now. Operations and envelopes read no other clock. */
  now?: () => number;
  /** Registers the hidden operation 10 (GET /v1/projects/trending). Off unless release-approved. */
  releaseTrendingProjects?: boolean;
  /**
   * Parse every success body with its strict response schema before sending it. Tests turn it on;
   * production leaves it off by default because the compiled snapshot already fixes the shapes and
   * the check costs measurable throughput (see docs/api.md, "Implementation notes").
   */
  checkResponses?: boolean;
}

export function createApp(options: AppOptions): H3 {
  const now = options.now ?? Date.now;
  const pipeline = new Pipeline({ meter: options.meter, now, checkResponses: options.checkResponses ?? false });
  const deps = { snapshot: options.snapshot, now };
  const served: ServedRoute[] = [];

  const app = new H3({
    // Malformed percent-encoding reaches the pipeline (422 on the parameter), not h3's bare 400.
    allowMalformedURL: true,
    silent: true,
    onError: (error, event) => _renderUnexpected(error, event, now),
  });

  for (const route of routes) {
    if (route.release === "trending_projects" && options.releaseTrendingProjects !== true) {
      // Registered anyway, so that /v1/projects/trending never falls through to /v1/projects/:slug.
      app.on(route.method, route.path, (event) => pipeline.notFound(event));
      continue;
    }
    if (route.operation !== route.handler.id) throw new Error(`route ${route.path} names ${route.operation} but serves ${route.handler.id}`);
    const entry = serveRoute(route, route.handler.create(deps));
    served.push(entry);
    app.on(route.method, route.path, (event) => pipeline.handle(event, entry, event.context.params));
  }

  registerReference(app, { releaseTrendingProjects: options.releaseTrendingProjects === true });

  app.all("/**", (event) => {
    // An empty path segment where a parameter belongs is that parameter out of range (decision 7).
    const empty = _matchEmptyParameter(served, event.url.pathname);
    if (empty !== undefined) return pipeline.handle(event, empty.entry, empty.params);
    return pipeline.notFound(event);
  });
  return app;
}

/** `/v1/projects//features` → get_project_features with slug "" (which then fails its length rule). */
function _matchEmptyParameter(served: readonly ServedRoute[], pathname: string): { entry: ServedRoute; params: Record<string, string> } | undefined {
  if (!pathname.includes("//") && !pathname.endsWith("/")) return undefined;
  const segments = pathname.split("/");
  for (const entry of served) {
    const template = entry.route.path.split("/");
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
    if (matches && emptyParameter) return { entry, params };
  }
  return undefined;
}

function _renderUnexpected(error: unknown, event: H3Event, now: () => number) {
  console.error("[cei] unhandled:", error);
  return respondError(newRequestId(), new ApiError("INTERNAL_ERROR"), {}, now());
}
