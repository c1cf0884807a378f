// POST bodies (decision 6): application/json only, at most 16 KiB, well-formed JSON. Problems are
// reported as `details` items with path "body"; nothing is thrown.
import type { ErrorDetail } from "./errors.ts";

export const MAX_BODY_BYTES = 16 * 1024;

const NO_BODY = Symbol("no body");

function _problem(message: string, code: string): ErrorDetail {
  return { path: "body", message, code };
}

function _isJsonMediaType(contentType: string | null): boolean {
  if (contentType === null) return false;
  const semicolon = contentType.indexOf(";");
  const mediaType = (semicolon === -1 ? contentType : contentType.slice(0, semicolon)).trim().toLowerCase();
  return mediaType === "application/json";
}

/** Reads at most MAX_BODY_BYTES + 1 bytes, so that an endless chunked body cannot exhaust memory. */
async function _readLimited(request: Request): Promise<string | typeof NO_BODY> {
  const stream = request.body;
  if (stream === null) return "";
  const reader = stream.getReader();
  const chunks: Uint8Array[] = [];
  let size = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    size += value.byteLength;
    if (size > MAX_BODY_BYTES) {
      await reader.cancel().catch(() => undefined);
      return NO_BODY;
    }
    chunks.push(value);
  }
  return Buffer.concat(chunks).toString("utf8");
}

/** The parsed body, or undefined with the problems pushed onto `problems`. */
export async function readJsonBody(request: Request, problems: ErrorDetail[]): Promise<unknown> {
  if (!_isJsonMediaType(request.headers.get("content-type"))) {
    problems.push(_problem("The body must be sent as application/json.", "unsupported_media_type"));
    return undefined;
  }
  const declared = request.headers.get("content-length");
  if (declared !== null && Number(declared) > MAX_BODY_BYTES) {
    problems.push(_problem(`The body must be at most ${MAX_BODY_BYTES} bytes.`, "body_too_large"));
    return undefined;
  }
  const text = await _readLimited(request);
  if (text === NO_BODY) {
    problems.push(_problem(`The body must be at most ${MAX_BODY_BYTES} bytes.`, "body_too_large"));
    return undefined;
  }
  try {
    return JSON.parse(text) as unknown;
  } catch {
    problems.push(_problem("The body is not well-formed JSON.", "malformed_json"));
    return undefined;
  }
}
