// A response `data` that is already JSON: assembled from pieces serialised once per snapshot, it is
// sent as is instead of being built as objects and stringified per request (measured: docs/performance.md).

export class JsonText {
  constructor(readonly json: string) {}
}

/** The body text of `data`. */
export function dataJson(data: unknown): string {
  return data instanceof JsonText ? data.json : JSON.stringify(data);
}

/** `data` as a plain value, for the strict response schemas (tests check every answer with them). */
export function dataValue(data: unknown): unknown {
  return data instanceof JsonText ? JSON.parse(data.json) : data;
}
