// Rendering every response, success or error: the {data, meta} / {error, meta} envelope and the
// headers that travel with it. Bodies are assembled as strings so that a payload is stringified once.
import { randomUUID } from "node:crypto";
import { STATUS_CODES } from "node:http";
// srvx's node Response (h3's own adapter) takes plain-object headers and goes straight to
// writeHead; h3's HTTPResponse would build an undici Headers object per response (~5% of a request).
import { FastResponse } from "srvx/node";
import type { H3Event } from "h3";
import type { RateLimitInfo } from "./meter/interface.ts";
import type { ApiError } from "./errors.ts";
import { RATE_WINDOW_MS } from "./policy.ts";
import { dataJson } from "./prebuilt-json.ts";
import { boundedDetails } from "./_request.ts";

/** What is known about the key's balance and window when the response is written. */
export interface Metering {
  credits_used: number;
  credits_remaining?: number;
  rate_limit?: RateLimitInfo;
  retry_after_s?: number;
}

/** Matches ^[A-Za-z0-9_.:-]{8,96}$: "req_" and a random UUID, 40 characters. */
export function newRequestId(): string {
  return "req_" + randomUUID();
}

const JSON_CONTENT_TYPE = "application/json; charset=utf-8";
const WINDOW_SECONDS = RATE_WINDOW_MS / 1000;

/** Serialises meta with request_id first; credits and rate_limit only when known. */
function _metaJson(requestId: string, metering: Metering): string {
  let json = `{"request_id":"${requestId}","credits_used":${metering.credits_used}`;
  if (metering.credits_remaining !== undefined) json += `,"credits_remaining":${metering.credits_remaining}`;
  const rate = metering.rate_limit;
  if (rate !== undefined) {
    json += `,"rate_limit":{"limit":${rate.limit},"remaining":${rate.remaining},"reset_at":"${rate.reset_at}","tier":"${rate.tier}"}`;
  }
  return json + "}";
}

function _headers(requestId: string, metering: Metering, now: number): Record<string, string> {
  const headers: Record<string, string> = {
    "content-type": JSON_CONTENT_TYPE,
    "cache-control": "no-store",
    "x-service-request-id": requestId,
    "x-service-credits-used": String(metering.credits_used),
  };
  if (metering.credits_remaining !== undefined) headers["x-service-credits-remaining"] = String(metering.credits_remaining);
  const rate = metering.rate_limit;
  if (rate !== undefined) {
    headers["x-service-rate-limit"] = `limit=${rate.limit};remaining=${rate.remaining};reset_at=${rate.reset_at};tier=${rate.tier}`;
    // draft-ietf-httpapi-ratelimit-headers: quota and window in the policy, remaining and reset in the limit.
    const resetSeconds = Math.max(0, Math.ceil((Date.parse(rate.reset_at) - now) / 1000));
    headers["ratelimit-policy"] = `"default";q=${rate.limit};w=${WINDOW_SECONDS}`;
    headers["ratelimit"] = `"default";r=${rate.remaining};t=${resetSeconds}`;
  }
  if (metering.retry_after_s !== undefined) headers["retry-after"] = String(metering.retry_after_s);
  return headers;
}

function _respond(status: number, body: string, headers: Record<string, string>): Response {
  return new FastResponse(body, { status, statusText: STATUS_CODES[status], headers });
}

export function respondData(requestId: string, data: unknown, metering: Metering, now: number): Response {
  const body = `{"data":${dataJson(data)},"meta":${_metaJson(requestId, metering)}}`;
  return _respond(200, body, _headers(requestId, metering, now));
}

/** Errors never charge (product decision 4): credits_used is forced to 0. */
export function respondError(requestId: string, error: ApiError, metering: Omit<Metering, "credits_used">, now: number): Response {
  const payload: { code: string; message: string; details?: unknown } = { code: error.code, message: error.message };
  // Every error envelope passes here, so no answer carries more than MAX_DETAILS items (decision 21).
  if (error.details !== undefined) payload.details = boundedDetails(error.details);
  const charged: Metering = { ...metering, credits_used: 0 };
  const body = `{"error":${JSON.stringify(payload)},"meta":${_metaJson(requestId, charged)}}`;
  return _respond(error.status, body, _headers(requestId, charged, now));
}

/**
 * The status the request log and metrics give a request whose client had gone before its answer
 * was handed over (nginx's 499, "client closed request"); nothing is sent (decision 39).
 */
export const CLIENT_CLOSED = 499;

/** The response to a client that has gone: never sent, so empty. */
export function respondNobody(): Response {
  return new FastResponse(null, { status: CLIENT_CLOSED });
}

/**
 * Whether the client's connection has closed (or half-closed: node:http then answers nothing), so
 * that no answer can reach it. Undefined off node:http (in-process requests), where none can close.
 */
export function clientConnection(event: H3Event): (() => boolean) | undefined {
  const socket = event.runtime?.node?.req?.socket;
  if (socket === undefined) return undefined;
  return () => socket.destroyed || !socket.writable;
}
