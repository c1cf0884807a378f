// The public contract, served outside /v1 without a key and never metered (decision 19):
// GET /openapi.json, and the reference page at GET /docs rendered by redoc's standalone bundle,
// served from node_modules with its one outside URL (a logo on cdn.redoc.ly) replaced, so that
// the page makes no request beyond this server (its Content-Security-Policy says so too).
import { readFileSync } from "node:fs";
import { createRequire } from "node:module";
import committed from "../../docs/openapi.json" with { type: "json" };
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

/** Registers each page with `get`, which gives it the request id to answer with. */
export function registerReference(get: (path: string, answer: (requestId: string) => Response) => void, options: { releaseTrendingProjects: boolean }): void {
  const document = _once(() => _document(options.releaseTrendingProjects));
  const bundle = _once(_redocBundle);
  const send = (requestId: string, body: string, contentType: string, extra: Record<string, string> = {}) =>
    new Response(body, {
      headers: { "content-type": contentType, "cache-control": "no-store", "x-service-request-id": requestId, ...extra },
    });
  const page = (requestId: string) => send(requestId, PAGE, "text/html; charset=utf-8", { "content-security-policy": CONTENT_SECURITY_POLICY });
  get("/openapi.json", (requestId) => send(requestId, document(), "application/json; charset=utf-8"));
  get("/docs", page);
  get("/docs/", page);
  get("/docs/redoc.standalone.js", (requestId) => send(requestId, bundle(), "text/javascript; charset=utf-8"));
  get("/docs/reference.js", (requestId) => send(requestId, INIT, "text/javascript; charset=utf-8"));
}
