// Answers that the HTTP layer gives by itself, before a request reaches the h3 app: unparsable or
// oversized requests, a request that took too long to arrive, HTTP/1.1 without Host, an Expect
// other than 100-continue. They are the API's error envelope (422 INVALID_REQUEST, one `details`
// item with path "headers" or "request"), never Node's bare 400/408/417/431, and every one of
// them closes the connection: the request could not be framed or trusted. Beside them, the 429 of
// a client that asked for the public reference paths too often (listen.ts): RATE_LIMITED with
// Retry-After, on a connection that stays open.
import type { ServerResponse } from "node:http";
import type { Socket } from "node:net";
import { newRequestId } from "./_respond.ts";
import type { ErrorDetail } from "./errors.ts";
import { defaultMessages } from "./errors.ts";

export const listenerProblems = {
  malformedRequest: { path: "request", code: "malformed_request", message: "The request is not valid HTTP/1.1." },
  headersTooLarge: { path: "headers", code: "headers_too_large", message: "The request line and headers must be at most 16 KiB." },
  requestTimeout: { path: "request", code: "request_timeout", message: "The request did not arrive in time." },
  missingHost: { path: "headers", code: "missing_host", message: "An HTTP/1.1 request must send a Host header." },
  unsupportedExpectation: { path: "headers", code: "unsupported_expectation", message: "The only Expect this server meets is 100-continue." },
} as const satisfies Record<string, ErrorDetail>;

function _envelope(problem: ErrorDetail | "RATE_LIMITED", snapshot: string | undefined): { requestId: string; body: string; headers: Record<string, string> } {
  const requestId = newRequestId();
  const error = problem === "RATE_LIMITED"
    ? { code: problem, message: defaultMessages.RATE_LIMITED }
    : { code: "INVALID_REQUEST", message: defaultMessages.INVALID_REQUEST, details: [problem] };
  const body = JSON.stringify({ error, meta: { request_id: requestId, credits_used: 0 } });
  const headers: Record<string, string> = {
    "content-type": "application/json; charset=utf-8",
    "cache-control": "no-store",
    "x-service-request-id": requestId,
    "x-service-credits-used": "0",
    "content-length": String(Buffer.byteLength(body)),
  };
  if (problem !== "RATE_LIMITED") headers.connection = "close";
  if (snapshot !== undefined) headers["x-service-snapshot"] = snapshot;
  return { requestId, body, headers };
}

/** For requests Node parsed (missing Host, unknown Expect): written through the response object. */
/** Returns the request id it answered with (for the log). */
export function answerFromListener(response: ServerResponse, problem: ErrorDetail, snapshot: string | undefined): string {
  const { requestId, body, headers } = _envelope(problem, snapshot);
  response.shouldKeepAlive = false;
  response.writeHead(422, headers);
  response.end(body);
  return requestId;
}

/** For 'clientError', where there is no response object: the bytes go straight to the socket. */
export function answerOnSocket(socket: Socket, problem: ErrorDetail, snapshot: string | undefined): string {
  const { requestId, body, headers } = _envelope(problem, snapshot);
  let head = "HTTP/1.1 422 Unprocessable Entity\r\n";
  for (const [name, value] of Object.entries(headers)) head += `${name}: ${value}\r\n`;
  socket.end(head + "\r\n" + body);
  return requestId;
}

/** 429 RATE_LIMITED for the public paths' per-client bucket; the connection is kept. */
export function answerRateLimited(response: ServerResponse, retryAfterS: number, snapshot: string | undefined): string {
  const { requestId, body, headers } = _envelope("RATE_LIMITED", snapshot);
  headers["retry-after"] = String(retryAfterS);
  response.writeHead(429, headers);
  response.end(body);
  return requestId;
}
