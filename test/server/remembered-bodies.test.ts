// Valid POST bodies are remembered by their bytes (server/operations/operation.ts, ValidBodyCache):
// the same bytes are not decoded, parsed and validated again, however they arrived,
// while a body that shares the fingerprint (length, first and last bytes) but differs anywhere
// between is validated on its own, as is the same body with other query parameters.
import Database from "better-sqlite3";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { ErrorDetail } from "../../server/errors.ts";
import { VALID_BODY_CACHE_MAX_BODY_BYTES, type OperationHandler, type Validation } from "../../server/operations/operation.ts";
import { searchEntities } from "../../server/operations/search-entities.ts";
import { FIXTURE_NOW, fixtureSnapshot } from "../_support/server.ts";

let snapshot: Database.Database;
let handler: OperationHandler;
beforeAll(async () => {
  snapshot = new Database(await fixtureSnapshot(), { readonly: true, fileMustExist: true });
  handler = searchEntities.create({ snapshot, now: () => FIXTURE_NOW });
});
afterAll(() => snapshot.close());

/** The body received in `pieces` chunks, validated as the pipeline asks for it. */
function validate(text: string, options: { pieces?: number; query?: Record<string, string> } = {}): { validation: Validation; problems: ErrorDetail[] } {
  const bytes = Buffer.from(text);
  const pieces = options.pieces ?? 1;
  const step = Math.ceil(bytes.length / pieces);
  const chunks = Array.from({ length: pieces }, (_, i) => Uint8Array.from(bytes.subarray(i * step, (i + 1) * step)));
  const problems: ErrorDetail[] = [];
  return { validation: handler.validateReceived({}, options.query ?? {}, { chunks, size: bytes.length }, problems), problems };
}

function requestOf(result: { validation: Validation }): unknown {
  if (!result.validation.valid) throw new Error(`invalid: ${JSON.stringify(result.validation.error.details)}`);
  return result.validation.request;
}

const PAD = " ".repeat(40);
const body = (middle: string) => `{${PAD}${middle}${PAD}}`;

describe("remembered POST bodies", () => {
  it("the same bytes give the same parsed request, in one chunk or several", () => {
    const first = requestOf(validate(body(`"q":"aurora","limit":5`)));
    expect(first).toEqual({ params: {}, query: {}, body: { q: "aurora", limit: 5 } });
    expect(requestOf(validate(body(`"q":"aurora","limit":5`)))).toBe(first);
    expect(requestOf(validate(body(`"q":"aurora","limit":5`), { pieces: 3 }))).toBe(first);
  });

  it("a body with the same length and ends but other bytes between is validated on its own, both ways", () => {
    const valid = requestOf(validate(body(`"q":"aurora","limit":6`)));
    const invalid = validate(body(`"q":"aurora","limit":0`));
    expect(invalid.validation.valid).toBe(false);
    expect(invalid.problems).toEqual([expect.objectContaining({ path: "limit" })]);
    const other = requestOf(validate(body(`"q":"aurorb","limit":6`)));
    expect(other).toMatchObject({ body: { q: "aurorb", limit: 6 } });
    expect(requestOf(validate(body(`"q":"aurora","limit":6`)))).toEqual(valid);
  });

  it("the same body with a query parameter is another request (422: a search takes none)", () => {
    requestOf(validate(body(`"q":"aurora","limit":7`)));
    const withQuery = validate(body(`"q":"aurora","limit":7`), { query: { limit: "7" } });
    expect(withQuery.validation.valid).toBe(false);
    expect(withQuery.problems).toEqual([expect.objectContaining({ path: "limit", code: "unknown_parameter" })]);
  });

  it("a body over VALID_BODY_CACHE_MAX_BODY_BYTES (only padding can make a valid one that long) is validated every time", () => {
    const long = `{"q":"aurora","limit":8${" ".repeat(VALID_BODY_CACHE_MAX_BODY_BYTES)}}`;
    const first = requestOf(validate(long));
    const second = requestOf(validate(long));
    expect(second).toEqual(first);
    expect(second).not.toBe(first);
  });

  it("malformed bytes stay a 422 every time", () => {
    for (let i = 0; i < 2; i++) {
      const { validation, problems } = validate(`{"q":"aurora",${PAD}`);
      expect(validation.valid).toBe(false);
      expect(problems).toEqual([expect.objectContaining({ path: "body", code: "malformed_json" })]);
    }
  });
});
