// The reference paths outside /v1 (decisions 19, 34, 38): what each one is, for the route
// registration (reference.ts), the per-client budget of the listener (listen.ts) and the
// contract (docs/openapi.json), so that the three never disagree. No key, never metered.

export interface ReferencePath {
  path: string;
  /** The operation id the contract gives it. */
  operationId: string;
  summary: string;
  contentType: string;
}

export const referencePaths = [
  {
    path: "/openapi.json",
    operationId: "openapi_document",
    summary: "The OpenAPI 3.1 document of the API, byte for byte as published (its sha256 is in the changelog)",
    contentType: "application/json; charset=utf-8",
  },
  {
    path: "/docs",
    operationId: "reference_page",
    summary: "The API reference page, rendered from this document (its scripts are served under /docs/)",
    contentType: "text/html; charset=utf-8",
  },
  {
    path: "/llms.txt",
    operationId: "llms_txt",
    summary: "A plain-text index of the operations for language models and agents (llmstxt.org)",
    contentType: "text/plain; charset=utf-8",
  },
] as const satisfies readonly ReferencePath[];

/** Whether a request path is one of the reference paths or the page's assets under /docs/. */
export function isReferencePath(path: string): boolean {
  return referencePaths.some((reference) => reference.path === path) || path.startsWith("/docs/");
}
