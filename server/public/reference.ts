// The public contract, served outside /v1 without a key and never metered (decision 19):
// GET /openapi.json, the committed document byte for byte, the reference page at GET /docs
// rendered by redoc's standalone bundle, whose one outside URL is replaced (assets.ts), so that
// the page makes no request beyond this server (its Content-Security-Policy says so too), and
// GET /llms.txt, the index for agents generated from the route table (llms.ts, decision 38).
// The page's scripts have content-hashed names and may be cached for a year; the page and the
// document are revalidated (no-cache with an ETag), so a new release is seen at once. Every large
// body is sent in brotli or gzip when the client accepts it. Each answer has the reason phrase,
// the request id and, while a snapshot is loaded, x-service-snapshot, as every answer of the API.
import { readFileSync } from "node:fs";
import { STATUS_CODES } from "node:http";
import { FastResponse } from "srvx/node";
import { buildOpenApi, type OpenApiDocument } from "../openapi/document.ts";
import { BUILT_DOCS_ASSETS, COMMITTED_OPENAPI } from "../_repo-files.ts";
import { docsAssets, encode, loadEncoded, type DocsAsset, type Encoded } from "./assets.ts";
import { chooseEncoding, type RepresentationRequest } from "./encoding.ts";
import { buildLlmsTxt } from "./llms.ts";
import { referencePaths } from "./paths.ts";

const CONTENT_SECURITY_POLICY = [
  "default-src 'none'", "script-src 'self'", "style-src 'self' 'unsafe-inline'", "img-src 'self' data:",
  "font-src 'self'", "connect-src 'self'", "worker-src 'self' blob:", "base-uri 'none'", "form-action 'none'", "frame-ancestors 'none'",
].join("; ");

const IMMUTABLE = "public, max-age=31536000, immutable";
const REVALIDATE = "no-cache";

function _page(assets: readonly DocsAsset[]): string {
  const scripts = assets.map((asset) => `<script src="/docs/${asset.file}"></script>\n`).join("");
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>Curated Entity Intelligence API reference</title>
<link rel="icon" href="data:,">
</head>
<body>
<div id="reference"></div>
${scripts}</body>
</html>
`;
}

/** The committed file's bytes; with the hidden operation released, regenerated as `cei openapi` writes it. */
function _document(releaseTrendingProjects: boolean): Buffer {
  const committed = readFileSync(COMMITTED_OPENAPI);
  if (!releaseTrendingProjects) return committed;
  const published = JSON.parse(committed.toString("utf8")) as OpenApiDocument;
  const examples = Object.fromEntries(Object.entries(published.components.examples).map(([name, example]) => [name, example.value]));
  return Buffer.from(JSON.stringify(buildOpenApi({ releaseTrendingProjects: true, examples }), null, 2) + "\n");
}

function _once<T>(make: () => T): () => T {
  let value: T | undefined;
  return () => (value ??= make());
}

/** What a reference answer knows of its request besides the negotiation headers. */
export interface ReferenceRequest extends RepresentationRequest {
  /** The content hash of the snapshot being served; undefined while none is loaded. */
  snapshot: string | undefined;
}

/** The chosen encoding of `encoded`, or 304 when the client holds it already. */
function _send(requestId: string, encoded: Encoded, request: ReferenceRequest, headers: Record<string, string>): Response {
  let encoding = chooseEncoding(request.acceptEncoding);
  // A body too small to gain (the init script) goes as it is.
  if (encoding !== "identity" && encoded[encoding].length >= encoded.identity.length) encoding = "identity";
  const etag = `"${encoded.hash}${encoding === "identity" ? "" : `-${encoding === "br" ? "br" : "gz"}`}"`;
  const common: Record<string, string> = { ...headers, vary: "Accept-Encoding", etag, "x-service-request-id": requestId };
  if (request.snapshot !== undefined) common["x-service-snapshot"] = request.snapshot;
  if (request.ifNoneMatch !== undefined && request.ifNoneMatch.split(",").some((tag) => tag.trim() === etag || tag.trim() === "*")) {
    return new FastResponse(null, { status: 304, statusText: STATUS_CODES[304], headers: common });
  }
  if (encoding !== "identity") common["content-encoding"] = encoding;
  const body = encoding === "br" ? encoded.br : encoding === "gzip" ? encoded.gzip : encoded.identity;
  return new FastResponse(body, { status: 200, statusText: STATUS_CODES[200], headers: common });
}

export type ReferenceAnswer = (requestId: string, request: ReferenceRequest) => Response | Promise<Response>;

export interface Reference {
  /** Loads every asset (from the build, else compressing them); whether all came from the build. */
  warm(): Promise<{ built: boolean }>;
}

/** Registers each page with `get`, which gives it the request id and the request's negotiation headers. */
export function registerReference(get: (path: string, answer: ReferenceAnswer) => void, options: { releaseTrendingProjects: boolean }): Reference {
  // The assets' names are needed to route them, so they are read and hashed here (a few ms); their
  // compressed forms, the page and the document wait for the first request or for warm().
  const assets = _once(docsAssets);
  const page = _once(() => Buffer.from(_page(assets())));
  const pageEncoded = _once(() => encode(page()));
  const encodedAssets = _once(() => Promise.all(assets().map((asset) => loadEncoded(asset, BUILT_DOCS_ASSETS.pathname))));
  const documentBytes = _once(() => _document(options.releaseTrendingProjects));
  const document = _once(() => encode(documentBytes()));
  const llmsTxt = _once(() => encode(Buffer.from(buildLlmsTxt(JSON.parse(documentBytes().toString("utf8")) as OpenApiDocument, options))));
  const contentType = (path: string) => referencePaths.find((reference) => reference.path === path)!.contentType;

  const answerPage: ReferenceAnswer = async (requestId, request) =>
    _send(requestId, await pageEncoded(), request, {
      "content-type": contentType("/docs"), "cache-control": REVALIDATE, "content-security-policy": CONTENT_SECURITY_POLICY,
    });
  get("/openapi.json", async (requestId, request) =>
    _send(requestId, await document(), request, { "content-type": contentType("/openapi.json"), "cache-control": REVALIDATE }));
  get("/llms.txt", async (requestId, request) =>
    _send(requestId, await llmsTxt(), request, { "content-type": contentType("/llms.txt"), "cache-control": REVALIDATE }));
  get("/docs", answerPage);
  get("/docs/", answerPage);
  for (const [i, asset] of assets().entries()) {
    get(`/docs/${asset.file}`, async (requestId, request) =>
      _send(requestId, (await encodedAssets())[i]!, request, { "content-type": asset.contentType, "cache-control": IMMUTABLE }));
  }
  return {
    async warm() {
      const [loaded] = await Promise.all([encodedAssets(), pageEncoded(), document(), llmsTxt()]);
      return { built: loaded.every((encoded) => encoded.built) };
    },
  };
}
