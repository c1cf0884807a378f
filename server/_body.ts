// POST bodies (decision 6): application/json only, at most 16 KiB, well-formed JSON. Problems are
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

function _problem(message: string, code: string): ErrorDetail {
  return { path: "body", message, code };
}

const bodyTooLarge = _problem(`The body must be at most ${MAX_BODY_BYTES} bytes.`, "body_too_large");

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
async function _read(request: Request, keep: boolean, node: IncomingMessage | undefined): Promise<string | typeof TOO_LARGE | typeof INCOMPLETE> {
  if (node !== undefined) return _readNode(node, keep);
  const stream = request.body;
  if (stream === null) return "";
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
  if (size > MAX_BODY_BYTES) return TOO_LARGE;
  return keep ? Buffer.concat(chunks).toString("utf8") : "";
}

/**
 * The same bounds, on node:http's own request: about 80 µs less per request than through the web
 * stream that the Request wraps around it (a 402 search, bench section `refused`).
 */
function _readNode(request: IncomingMessage, keep: boolean): Promise<string | typeof TOO_LARGE | typeof INCOMPLETE> {
  if (request.complete && request.readableFlowing !== true) return Promise.resolve(_readBuffered(request, keep));
  return new Promise((resolve) => {
    const chunks: Buffer[] = [];
    let size = 0;
    const finish = (result: string | typeof TOO_LARGE | typeof INCOMPLETE) => {
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
    // One chunk (the usual case on loopback and for small bodies) is decoded without a copy.
    const onEnd = () => finish(size > MAX_BODY_BYTES ? TOO_LARGE : !keep ? "" : chunks.length === 1 ? chunks[0]!.toString("utf8") : Buffer.concat(chunks, size).toString("utf8"));
    // The client went away, or the listener cut a body that arrived too slowly.
    const onAbort = () => finish(INCOMPLETE);
    if (request.complete && request.readableEnded) {
      resolve("");
      return;
    }
    request.on("data", onData).on("end", onEnd).on("error", onAbort).on("close", onAbort);
  });
}

/**
 * A body that arrived whole before the pipeline asked for it (the usual case: it came with the
 * headers while the key and admission steps awaited the meter) sits in the request's buffer: it
 * is taken at once, without listeners, flowing mode and the ticks they cost.
 */
function _readBuffered(request: IncomingMessage, keep: boolean): string | typeof TOO_LARGE {
  const chunks: Buffer[] = [];
  let size = 0;
  for (let chunk = request.read() as Buffer | null; chunk !== null; chunk = request.read() as Buffer | null) {
    size += chunk.length;
    if (keep && size <= MAX_BODY_BYTES) chunks.push(chunk);
  }
  if (size > MAX_BODY_BYTES) return TOO_LARGE;
  return !keep ? "" : chunks.length === 1 ? chunks[0]!.toString("utf8") : Buffer.concat(chunks, size).toString("utf8");
}

/** A body refused before reading: drained when small enough, else left for the listener to close. */
async function _refuse(request: Request, node: IncomingMessage | undefined, problem: ErrorDetail, problems: ErrorDetail[]): Promise<undefined> {
  problems.push(problem);
  const declared = request.headers.get("content-length");
  if (declared === null || Number(declared) <= MAX_DRAINED_BODY_BYTES) await _read(request, false, node);
  return undefined;
}

/**
 * The parsed body, or undefined with the problems pushed onto `problems`. On node:http, `node` is
 * the IncomingMessage behind `request`: its body is read from there.
 */
export async function readJsonBody(request: Request, problems: ErrorDetail[], node?: IncomingMessage): Promise<unknown> {
  if (!_isJsonMediaType(request.headers.get("content-type"))) {
    return _refuse(request, node, _problem("The body must be sent as application/json.", "unsupported_media_type"), problems);
  }
  const declared = request.headers.get("content-length");
  if (declared !== null && Number(declared) > MAX_BODY_BYTES) return _refuse(request, node, bodyTooLarge, problems);
  const text = await _read(request, true, node);
  if (text === TOO_LARGE) {
    problems.push(bodyTooLarge);
    return undefined;
  }
  if (text === INCOMPLETE) {
    problems.push(_problem("The body ended before it was complete.", "incomplete_body"));
    return undefined;
  }
  try {
    return JSON.parse(text) as unknown;
  } catch {
    problems.push(_problem("The body is not well-formed JSON.", "malformed_json"));
    return undefined;
  }
}
