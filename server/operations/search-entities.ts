// 1. POST /v1/search: entities by name, symbol, slug or exact X handle, as identity objects.
import { z } from "zod";
import {
  fundIdentity, limitBody, personIdentity, projectIdentity, stockIdentity, tokenIdentity,
} from "./_schemas.ts";
import { createSearchIndex, searchFamilies, searchText, type SearchFamily } from "./_search.ts";
import { defineOperation } from "./_operation.ts";

export const SEARCH_DEFAULT_LIMIT = 10;

export const searchEntitiesRequest = z.strictObject({
  params: z.strictObject({}),
  query: z.strictObject({}),
  body: z.strictObject({
    q: searchText,
    types: z
      .array(z.enum(searchFamilies, `must be one of: ${searchFamilies.join(", ")}`))
      .min(1, "must name at least one entity family")
      .refine((types) => new Set(types).size === types.length, {
        message: "must not repeat a family",
        params: { code: "duplicate_value" },
      })
      .optional(),
    limit: limitBody(20, SEARCH_DEFAULT_LIMIT),
  }, "must be a JSON object"),
});

/** Search shows x_account entries as {type, id} only (spec); links are for the X account endpoint. */
const xAccountHit = z.strictObject({ type: z.literal("x_account"), id: z.string() });
const searchResult = z.discriminatedUnion("type", [
  projectIdentity, fundIdentity, personIdentity, tokenIdentity, stockIdentity, xAccountHit,
]);

export const searchEntitiesResponse = z.strictObject({
  types: z.array(z.enum(searchFamilies)),
  limit: z.number().int(),
  results: z.array(searchResult),
});
export type SearchEntitiesResponse = z.output<typeof searchEntitiesResponse>;
type SearchResult = z.output<typeof searchResult>;

export const searchEntities = defineOperation({
  id: "search_entities",
  request: searchEntitiesRequest,
  response: searchEntitiesResponse,
  prepare({ snapshot }) {
    const index = createSearchIndex(snapshot);
    const identity: Record<SearchFamily, (id: string) => SearchResult | undefined> = {
      project: _identity(snapshot.prepare("SELECT 'project' AS type, id, slug, name FROM projects WHERE id = ?")),
      fund: _identity(snapshot.prepare("SELECT 'fund' AS type, id, slug, name, fund_type FROM funds WHERE id = ?")),
      person: _identity(snapshot.prepare("SELECT 'person' AS type, id, slug, full_name FROM people WHERE id = ?")),
      token: _identity(snapshot.prepare("SELECT 'token' AS type, id, symbol, name FROM tokens WHERE id = ?")),
      stock: _identity(snapshot.prepare("SELECT 'stock' AS type, id, slug, name, ticker FROM stocks WHERE id = ?")),
      x_account: (id) => ({ type: "x_account", id }),
    };
    const allFamilies = new Set(searchFamilies);
    return ({ body }): SearchEntitiesResponse => {
      const families = body.types === undefined ? allFamilies : new Set(body.types);
      const limit = body.limit;
      const results: SearchResult[] = [];
      for (const hit of index.search(body.q, families, limit)) {
        const found = identity[hit.type](hit.id);
        if (found !== undefined) results.push(found);
      }
      return { types: searchFamilies.filter((family) => families.has(family)), limit, results };
    };
  },
});

function _identity(statement: { get(id: string): unknown }): (id: string) => SearchResult | undefined {
  return (id) => statement.get(id) as SearchResult | undefined;
}
