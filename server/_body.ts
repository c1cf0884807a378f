// POST bodies (decision 6): application/json only, not encoded, at most 16 KiB, well-formed JSON. Problems are
// reported as `details` items with path "body"; nothing is thrown.
//
// A refused body is still read to its end (and discarded) when it is at most
// MAX_DRAINED_BODY_BYTES, so that the next request on a keep-alive connection is parsed and
// answered; a larger one is left unread and the listener closes the connection after the answer
// (listen.ts). Reading is bounded in time by the listener's request timeout.
import type { IncomingMessage } from "node:http";
import type { ErrorDetail } from "./errors.ts";

export const MAX_BODY_BYTES = 16 * 1024;
export const MAX_DRAINED_BODY_BYTES = 1024 * 1024;

const TOO_LARGE = Symbol("too large");
const INCOMPLETE = Symbol("incomplete");

/** The bytes kept of a body that was read to its end. */
interface Bytes {
  chunks: Uint8Array[];
  size: number;
}

/**
 * A POST body as received before admission (decision 20): its bytes, not yet decoded or parsed, or
 * the problem found with it. `drain` reads on and discards a body refused from its headers alone,
 * for when the answer is that problem (so that the connection can carry the next request).
 */
export type ReceivedBody = Bytes | { problem: ErrorDetail; drain?: () => Promise<void> };

function _problem(message: string, code: string): ErrorDetail {
  return { path: "body", message, code };
}

const bodyTooLarge = _problem(`The body must be at most ${MAX_BODY_BYTES} bytes.`, "body_too_large");
const incompleteBody = _problem("The body ended before it was complete.", "incomplete_body");
const malformedJson = _problem("The body is not well-formed JSON.", "malformed_json");
const unsupportedMediaType = _problem("The body must be sent as application/json.", "unsupported_media_type");

/**
 * Whether the body's bytes are the JSON itself: no content coding but `identity`, and no transfer
 * coding but `chunked` (which the HTTP parser removes). A gzip'd body is refused, not decoded and
 * not read as it stands: a proxy that decodes it would see another request than this server, and
 * decoding would let a few KiB expand past every size bound.
 */
function _unsupportedEncoding(headers: Headers): ErrorDetail | undefined {
  const content = headers.get("content-encoding");
  if (content !== null && !_only(content, "identity")) {
    return _problem(`The body must not be encoded: Content-Encoding ${JSON.stringify(content.trim())} is not supported; send the JSON as it is.`, "unsupported_encoding");
  }
  const transfer = headers.get("transfer-encoding");
  if (transfer !== null && !_only(transfer, "chunked")) {
    return _problem(`The body must not be encoded: Transfer-Encoding ${JSON.stringify(transfer.trim())} is not supported; send it as it is, or chunked.`, "unsupported_encoding");
  }
  return undefined;
}

/** Whether a coding list (`a, b`) names only `coding` (any case), an empty list included. */
function _only(list: string, coding: string): boolean {
  for (const part of list.split(",")) {
    const name = part.trim().toLowerCase();
    if (name !== "" && name !== coding) return false;
  }
  return true;
}

function _isJsonMediaType(contentType: string | null): boolean {
  if (contentType === null) return false;
  const semicolon = contentType.indexOf(";");
  const mediaType = (semicolon === -1 ? contentType : contentType.slice(0, semicolon)).trim().toLowerCase();
  return mediaType === "application/json";
}

/**
 * Keeps at most MAX_BODY_BYTES, reads on (discarding) up to MAX_DRAINED_BODY_BYTES, and gives up
 * beyond that, so that an endless chunked body can exhaust neither memory nor the connection.
 */
async function _read(request: Request, keep: boolean, node: IncomingMessage | undefined): Promise<Bytes | typeof TOO_LARGE | typeof INCOMPLETE> {
  if (node !== undefined) return _readNode(node, keep);
  const stream = request.body;
  if (stream === null) return { chunks: [], size: 0 };
  const reader = stream.getReader();
  const chunks: Uint8Array[] = [];
  let size = 0;
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      size += value.byteLength;
      if (size > MAX_DRAINED_BODY_BYTES) {
        await reader.cancel().catch(() => undefined);
        return TOO_LARGE;
      }
      if (keep && size <= MAX_BODY_BYTES) chunks.push(value);
    }
  } catch {
    // The client went away, or the listener cut a body that arrived too slowly.
    return INCOMPLETE;
  }
  return size > MAX_BODY_BYTES ? TOO_LARGE : { chunks, size };
}

/**
 * The same bounds, on node:http's own request: about 80 µs less per request than through the web
 * stream that the Request wraps around it (a 402 search, bench section `refused`).
 */
function _readNode(request: IncomingMessage, keep: boolean): Promise<Bytes | typeof TOO_LARGE | typeof INCOMPLETE> {
  if (request.complete && request.readableFlowing !== true) return Promise.resolve(_readBuffered(request, keep));
  return new Promise((resolve) => {
    const chunks: Buffer[] = [];
    let size = 0;
    const finish = (result: Bytes | typeof TOO_LARGE | typeof INCOMPLETE) => {
      request.off("data", onData).off("end", onEnd).off("error", onAbort).off("close", onAbort);
      resolve(result);
    };
    const onData = (chunk: Buffer) => {
      size += chunk.length;
      if (size > MAX_DRAINED_BODY_BYTES) {
        // Left unread: the listener closes the connection after the answer (listen.ts).
        request.pause();
        finish(TOO_LARGE);
      } else if (keep && size <= MAX_BODY_BYTES) {
        chunks.push(chunk);
      }
    };
    const onEnd = () => finish(size > MAX_BODY_BYTES ? TOO_LARGE : { chunks, size });
    // The client went away, or the listener cut a body that arrived too slowly.
    const onAbort = () => finish(INCOMPLETE);
    if (request.complete && request.readableEnded) {
      resolve({ chunks: [], size: 0 });
      return;
    }
    request.on("data", onData).on("end", onEnd).on("error", onAbort).on("close", onAbort);
  });
}

/**
 * A body that arrived whole before the pipeline asked for it (the usual case: it came with the
 * headers) sits in the request's buffer: it is taken at once, without listeners, flowing mode and
 * the ticks they cost.
 */
function _readBuffered(request: IncomingMessage, keep: boolean): Bytes | typeof TOO_LARGE {
  const chunks: Buffer[] = [];
  let size = 0;
  for (let chunk = request.read() as Buffer | null; chunk !== null; chunk = request.read() as Buffer | null) {
    size += chunk.length;
    if (keep && size <= MAX_BODY_BYTES) chunks.push(chunk);
  }
  return size > MAX_BODY_BYTES ? TOO_LARGE : { chunks, size };
}

/** A body refused from its headers: drained when small enough, else left for the listener to close. */
function _refused(request: Request, node: IncomingMessage | undefined, problem: ErrorDetail): ReceivedBody {
  const declared = request.headers.get("content-length");
  if (declared !== null && !(Number(declared) <= MAX_DRAINED_BODY_BYTES)) return { problem };
  return { problem, drain: async () => void (await _read(request, false, node)) };
}

/**
 * Receives a JSON body: its headers checked, its bytes read (at most MAX_BODY_BYTES kept). Nothing
 * is decoded or parsed here: that is validation, which runs only for an admitted request
 * (parseJsonBody). On node:http, `node` is the IncomingMessage behind `request`: the body is read
 * from there.
 */
export async function receiveJsonBody(request: Request, node?: IncomingMessage): Promise<ReceivedBody> {
  const encoded = _unsupportedEncoding(request.headers);
  if (encoded !== undefined) return _refused(request, node, encoded);
  if (!_isJsonMediaType(request.headers.get("content-type"))) return _refused(request, node, unsupportedMediaType);
  const declared = request.headers.get("content-length");
  if (declared !== null && Number(declared) > MAX_BODY_BYTES) return _refused(request, node, bodyTooLarge);
  const bytes = await _read(request, true, node);
  if (bytes === TOO_LARGE) return { problem: bodyTooLarge };
  if (bytes === INCOMPLETE) return { problem: incompleteBody };
  return bytes;
}

/** A received body's bytes as one Buffer (undefined for a body refused as received). */
export function receivedBytes(body: ReceivedBody): Buffer | undefined {
  if ("problem" in body) return undefined;
  // One chunk (the usual case on loopback and for small bodies) is seen without a copy.
  const { chunks, size } = body;
  if (chunks.length === 1) return Buffer.from(chunks[0]!.buffer, chunks[0]!.byteOffset, size);
  const joined = Buffer.concat(chunks, size);
  // Joined once: a second look (parseJsonBody after a cache miss) takes the same Buffer.
  body.chunks = [joined];
  return joined;
}

/** The parsed body, or undefined with its problem pushed onto `problems`. */
export function parseJsonBody(body: ReceivedBody, problems: ErrorDetail[]): unknown {
  const bytes = receivedBytes(body);
  if (bytes === undefined) {
    problems.push((body as { problem: ErrorDetail }).problem);
    return undefined;
  }
  const text = bytes.toString("utf8");
  try {
    return JSON.parse(text) as unknown;
  } catch {
    problems.push(malformedJson);
    return undefined;
  }
}
