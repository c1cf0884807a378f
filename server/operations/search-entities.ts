// 1. POST /v1/search: entities by name, symbol, slug, title, exact X handle or exact contract address, as identity objects.
import { z } from "zod";
import {
  dateTime, date, fundIdentity, limitApplied, limitBody, narrativeIdentity, personIdentity, projectIdentity, stockIdentity, tokenIdentity,
} from "./_schemas.ts";
import {
  createSearchIndex, defaultSearchFamilies, searchFamilies, searchText, type SearchEntries, type SearchFamily,
} from "./search-index.ts";
import { defineOperation } from "./operation.ts";
import type { SearchKeyFamily } from "../../snapshot/search-keys.ts";
import { JsonText } from "../prebuilt-json.ts";

export const SEARCH_DEFAULT_LIMIT = 10;
const SEARCH_MAX_LIMIT = 20;
/** Decision 21: `types` holds at most this many values. */
export const SEARCH_MAX_TYPES = 6;

/**
 * 1 to 6 known families, each named once. A longer array is one problem at `types` (its items are
 * not inspected, so a huge array costs one detail); otherwise each unknown or repeated item is a
 * problem at `types[i]`.
 */
const searchTypes = z
  .array(z.unknown(), 'must be an array of entity families')
  .min(1, 'must name at least one entity family')
  .max(SEARCH_MAX_TYPES, `may name at most ${SEARCH_MAX_TYPES} entity families`)
  .superRefine((types, ctx) => {
    if (types.length > SEARCH_MAX_TYPES) return;
    const named = new Set<unknown>();
    types.forEach((type, i) => {
      if (!(searchFamilies as readonly unknown[]).includes(type)) {
        ctx.addIssue({
          code: "custom", path: [i], params: { code: "invalid_value" },
          message: `must be one of: ${searchFamilies.join(", ")}`,
        });
      } else if (named.has(type)) {
        ctx.addIssue({
          code: "custom", path: [i], params: { code: "duplicate_value" },
          message: `repeats "${String(type)}"; name each entity family once`,
        });
      }
      named.add(type);
    });
  })
  .transform((types) => types as SearchFamily[])
  // The contract states what the refinement checks (items are read as unknown so that a long list costs nothing).
  .meta({ items: { type: "string", enum: [...searchFamilies] }, uniqueItems: true });

export const searchEntitiesRequest = z.strictObject({
  params: z.strictObject({}),
  query: z.strictObject({}),
  body: z.strictObject({
    q: searchText,
    types: searchTypes.optional(),
    limit: limitBody(SEARCH_MAX_LIMIT, SEARCH_DEFAULT_LIMIT),
  }, "must be a JSON object"),
});

/** Search shows x_account entries as {type, id} only (spec); links are for the X account endpoint. */
const xAccountHit = z.strictObject({ type: z.literal("x_account"), id: z.string() });
const newsHit = z.strictObject({ type: z.literal("news"), id: z.string(), title: z.string(), published_at: dateTime });
const eventHit = z.strictObject({ type: z.literal("event"), id: z.string(), slug: z.string(), name: z.string(), start_date: date });
const searchResult = z.discriminatedUnion("type", [
  projectIdentity, fundIdentity, personIdentity, tokenIdentity, stockIdentity, xAccountHit, newsHit, eventHit, narrativeIdentity,
]);

export const searchEntitiesResponse = z.strictObject({
  types: z.array(z.enum(searchFamilies)),
  limit: limitApplied(SEARCH_MAX_LIMIT),
  results: z.array(searchResult),
});
export type SearchEntitiesResponse = z.output<typeof searchEntitiesResponse>;

/**
 * Each hit's entry: its identity object, straight from SQLite (every identity field is text, so
 * json_object writes what JSON.stringify would). Search shows an X account as {type, id} only
 * (spec); links are for the X account endpoint. News, events and narratives are the rows their
 * detail operations serve: the snapshot holds no others. An X account is found by its exact id or handle.
 */
export const searchEntries: SearchEntries = {
  families: {
    project: "json_object('type', 'project', 'id', id, 'slug', slug, 'name', name)",
    fund: "json_object('type', 'fund', 'id', id, 'slug', slug, 'name', name, 'fund_type', fund_type)",
    person: "json_object('type', 'person', 'id', id, 'slug', slug, 'full_name', full_name)",
    token: "json_object('type', 'token', 'id', id, 'symbol', symbol, 'name', name)",
    stock: "json_object('type', 'stock', 'id', id, 'slug', slug, 'name', name, 'ticker', ticker)",
    news: "json_object('type', 'news', 'id', id, 'title', title, 'published_at', published_at)",
    event: "json_object('type', 'event', 'id', id, 'slug', slug, 'name', name, 'start_date', start_date)",
    narrative: "json_object('type', 'narrative', 'id', id, 'slug', slug, 'name', name)",
    x_account: "json_object('type', 'x_account', 'id', id)",
  } satisfies Record<SearchKeyFamily, string>,
};

export const searchEntities = defineOperation({
  id: "search_entities",
  request: searchEntitiesRequest,
  response: searchEntitiesResponse,
  prepare({ snapshot, xHandleSearchKey }) {
    const index = createSearchIndex(snapshot, xHandleSearchKey, searchEntries);
    const unnamed = new Set<SearchFamily>(defaultSearchFamilies);
    return ({ body }): JsonText => {
      const families = body.types === undefined ? unnamed : new Set(body.types);
      const limit = body.limit ?? SEARCH_DEFAULT_LIMIT;
      const results = index.search(body.q, families, limit);
      const types = searchFamilies.filter((family) => families.has(family));
      return new JsonText(`{"types":${JSON.stringify(types)},"limit":${limit},"results":[${results.join(",")}]}`);
    };
  },
});
