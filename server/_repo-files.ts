// Files of the repository that the server reads at run time. This module sits one folder below
// the repository, as every bundled file in dist/ does (scripts/build.mjs), so that the same
// relative URLs name the same files whether it runs from the sources or from the bundle.

/** The OpenAPI document as committed: /openapi.json sends its bytes (CHANGELOG.md states its sha256). */
export const COMMITTED_OPENAPI = new URL("../docs/openapi.json", import.meta.url);

/** The reference page's assets, hashed and precompressed by the build (server/public/assets.ts). */
export const BUILT_DOCS_ASSETS = new URL("../dist/docs/", import.meta.url);
