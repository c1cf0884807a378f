// The reference page's static assets (redoc's standalone bundle and the script that starts it):
// named by a hash of their content so that clients and CDNs may keep them for a year, and kept in
// brotli and gzip beside the original. The build (scripts/build.mjs) writes them to dist/docs/ at
// the highest quality worth its time; a server that finds no current build there compresses them
// once at start-up, a little less tightly, and keeps them in memory.
import { createHash } from "node:crypto";
import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import { join } from "node:path";
import { promisify } from "node:util";
import { brotliCompress, brotliDecompress, constants, gunzip, gzip } from "node:zlib";

const REDOC_LOGO = "https://cdn.redoc.ly/redoc/logo-mini.svg";
const BLANK_IMAGE = "data:image/svg+xml,%3Csvg xmlns='http://www.w3.org/2000/svg' width='1' height='1'/%3E";

export const REFERENCE_INIT = `Redoc.init("/openapi.json", { expandResponses: "200", jsonSampleExpandLevel: 3, sortTagsAlphabetically: false }, document.getElementById("reference"));\n`;

/** One representation set of a file: the original and its brotli and gzip forms. */
export interface Encoded {
  identity: Buffer;
  br: Buffer;
  gzip: Buffer;
  /** The first 16 hex digits of the original's sha256: the hashed name's part and the ETag's. */
  hash: string;
}

export interface DocsAsset {
  /** The name the page would use without a hash, e.g. `redoc.standalone.js`. */
  name: string;
  /** The name it is served under, e.g. `redoc.standalone.3f2a….js`. */
  file: string;
  contentType: string;
  body: Buffer;
  hash: string;
}

/** Quality 10 is within 1.5% of 11 on redoc's bundle at 40% of the time (4.3 s against 10.6 s here). */
const BUILD_BROTLI_QUALITY = 10;
/** At start-up, quality 9: 2% larger than 10, compressed in 0.2 s on the thread pool. */
const STARTUP_BROTLI_QUALITY = 9;

export const contentHash = (body: Buffer) => createHash("sha256").update(body).digest("hex").slice(0, 16);

function _asset(name: string, contentType: string, body: Buffer): DocsAsset {
  const hash = contentHash(body);
  const dot = name.lastIndexOf(".");
  return { name, file: `${name.slice(0, dot)}.${hash}${name.slice(dot)}`, contentType, body, hash };
}

/** redoc's bundle with its one outside URL (a logo on cdn.redoc.ly) replaced, so the page asks nothing of another host. */
function _redocBundle(): Buffer {
  const file = createRequire(import.meta.url).resolve("redoc/bundles/redoc.standalone.js");
  const source = readFileSync(file, "utf8");
  if (!source.includes(REDOC_LOGO)) throw new Error(`${file} no longer loads ${REDOC_LOGO}: check it for outside requests`);
  return Buffer.from(source.replaceAll(REDOC_LOGO, BLANK_IMAGE));
}

/** The assets as the server sends them, in the order the page loads them. */
export function docsAssets(): DocsAsset[] {
  const script = "text/javascript; charset=utf-8";
  return [_asset("redoc.standalone.js", script, _redocBundle()), _asset("reference.js", script, Buffer.from(REFERENCE_INIT))];
}

export async function encode(body: Buffer, brotliQuality = STARTUP_BROTLI_QUALITY): Promise<Encoded> {
  const params = { [constants.BROTLI_PARAM_QUALITY]: brotliQuality, [constants.BROTLI_PARAM_SIZE_HINT]: body.length };
  const [br, gzipped] = await Promise.all([promisify(brotliCompress)(body, { params }), promisify(gzip)(body, { level: 9 })]);
  return { identity: body, br, gzip: gzipped, hash: contentHash(body) };
}

/** Writes each asset under its hashed name, with `.br` and `.gz` beside it (scripts/build.mjs). */
export async function writeDocsAssets(dir: string): Promise<string[]> {
  mkdirSync(dir, { recursive: true });
  const written: string[] = [];
  for (const asset of docsAssets()) {
    const encoded = await encode(asset.body, BUILD_BROTLI_QUALITY);
    writeFileSync(join(dir, asset.file), encoded.identity);
    writeFileSync(join(dir, `${asset.file}.br`), encoded.br);
    writeFileSync(join(dir, `${asset.file}.gz`), encoded.gzip);
    written.push(asset.file);
  }
  return written;
}

/**
 * The asset's encodings from the build when it wrote this very content (its hashed name is in the
 * directory, whole), else compressed now. `built` says which, for the start-up log.
 */
export async function loadEncoded(asset: DocsAsset, dir: string): Promise<Encoded & { built: boolean }> {
  const path = join(dir, asset.file);
  if ([`${path}.br`, `${path}.gz`].every((file) => existsSync(file))) {
    const br = readFileSync(`${path}.br`);
    const gzipped = readFileSync(`${path}.gz`);
    // A file cut short or edited in place keeps its name: what it decodes to is checked, not the name.
    const decoded = await Promise.all([promisify(brotliDecompress)(br), promisify(gunzip)(gzipped)]).catch(() => []);
    if (decoded.length === 2 && decoded.every((body) => body.equals(asset.body))) return { identity: asset.body, br, gzip: gzipped, hash: asset.hash, built: true };
  }
  return { ...(await encode(asset.body)), built: false };
}
