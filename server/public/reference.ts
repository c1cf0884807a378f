// The public contract, served outside /v1 without a key and never metered (decision 19):
// GET /openapi.json, and the reference page at GET /docs rendered by redoc's standalone bundle,
// served from node_modules with its one outside URL (a logo on cdn.redoc.ly) replaced, so that
// the page makes no request beyond this server (its Content-Security-Policy says so too).
import { readFileSync } from "node:fs";
import { createRequire } from "node:module";
import type { H3 } from "h3";
import committed from "../../docs/openapi.json" with { type: "json" };
import { newRequestId } from "../_respond.ts";
import { buildOpenApi, type OpenApiDocument } from "../openapi/document.ts";

const REDOC_LOGO = "https://cdn.redoc.ly/redoc/logo-mini.svg";
const BLANK_IMAGE = "data:image/svg+xml,%3Csvg xmlns='http://www.w3.org/2000/svg' width='1' height='1'/%3E";

const CONTENT_SECURITY_POLICY = [
  "default-src 'none'", "script-src 'self'", "style-src 'self' 'unsafe-inline'", "img-src 'self' data:",
  "font-src 'self'", "connect-src 'self'", "worker-src 'self' blob:", "base-uri 'none'", "form-action 'none'", "frame-ancestors 'none'",
].join("; ");

const PAGE = `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>Curated Entity Intelligence API reference</title>
<link rel="icon" href="data:,">
</head>
<body>
<div id="reference"></div>
<script src="/docs/redoc.standalone.js"></script>
<script src="/docs/reference.js"></script>
</body>
</html>
`;

const INIT = `Redoc.init("/openapi.json", { expandResponses: "200", jsonSampleExpandLevel: 3, sortTagsAlphabetically: false }, document.getElementById("reference"));\n`;

/** The committed document; with the hidden operation released, regenerated with its examples. */
function _document(releaseTrendingProjects: boolean): string {
  const published = committed as unknown as OpenApiDocument;
  if (!releaseTrendingProjects) return JSON.stringify(published);
  const examples = Object.fromEntries(Object.entries(published.components.examples).map(([name, example]) => [name, example.value]));
  return JSON.stringify(buildOpenApi({ releaseTrendingProjects: true, examples }));
}

function _redocBundle(): string {
  const file = createRequire(import.meta.url).resolve("redoc/bundles/redoc.standalone.js");
  const source = readFileSync(file, "utf8");
  if (!source.includes(REDOC_LOGO)) throw new Error(`${file} no longer loads ${REDOC_LOGO}: check it for outside requests`);
  return source.replaceAll(REDOC_LOGO, BLANK_IMAGE);
}

function _once<T>(make: () => T): () => T {
  let value: T | undefined;
  return () => (value ??= make());
}

export function registerReference(app: H3, options: { releaseTrendingProjects: boolean }): void {
  const document = _once(() => _document(options.releaseTrendingProjects));
  const bundle = _once(_redocBundle);
  const send = (body: string, contentType: string, extra: Record<string, string> = {}) =>
    new Response(body, {
      headers: { "content-type": contentType, "cache-control": "no-store", "x-service-request-id": newRequestId(), ...extra },
    });
  const page = () => send(PAGE, "text/html; charset=utf-8", { "content-security-policy": CONTENT_SECURITY_POLICY });
  app.get("/openapi.json", () => send(document(), "application/json; charset=utf-8"));
  app.get("/docs", page);
  app.get("/docs/", page);
  app.get("/docs/redoc.standalone.js", () => send(bundle(), "text/javascript; charset=utf-8"));
  app.get("/docs/reference.js", () => send(INIT, "text/javascript; charset=utf-8"));
}
