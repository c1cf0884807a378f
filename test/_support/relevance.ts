// The search relevance suite's queries (fixtures/real-search.queries.json): each names the entity
// it means and the rank it must be found within (`within`), or null for a typo the search does not
// support (the entity must not be among the results). Read by the relevance test and by the bench.
import { readFileSync } from "node:fs";
import type { SearchFamily } from "../../server/operations/search-index.ts";
import { xAccountId } from "../../snapshot/x-ids.ts";

export interface RelevanceQuery {
  kind: string;
  q: string;
  types?: SearchFamily[];
  expect: { type: SearchFamily; id: string } | { type: "x_account"; handle: string };
  within: number | null;
  note?: string;
}

export const RELEVANCE_QUERIES: readonly RelevanceQuery[] = JSON.parse(
  readFileSync(new URL("../../fixtures/real-search.queries.json", import.meta.url), "utf8"),
) as RelevanceQuery[];

/** The expected entity's id: an X account's is derived from its handle with the compile secret. */
export function expectedId(query: RelevanceQuery, xSecret: string): string {
  return "handle" in query.expect ? xAccountId(xSecret, query.expect.handle) : query.expect.id;
}

/** The 1-based rank of the expected entity among `results`, or 0 when it is not there. */
export function rankOf(query: RelevanceQuery, results: ReadonlyArray<{ type: string; id: string }>, xSecret: string): number {
  const id = expectedId(query, xSecret);
  return results.findIndex((hit) => hit.type === query.expect.type && hit.id === id) + 1;
}
