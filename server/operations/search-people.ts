// 2. GET /v1/people/search: people matched by name or slug inside the bounded candidate set
// (people with an eligible investment or role); not a profile or a people export.
import { z } from "zod";
import { limitApplied, limitQuery, personIdentity } from "./_schemas.ts";
import { createSearchIndex, searchText } from "./search-index.ts";
import { searchEntries } from "./search-entities.ts";
import { defineOperation } from "./operation.ts";
import { JsonText } from "../prebuilt-json.ts";

export const PEOPLE_SEARCH_DEFAULT_LIMIT = 10;
const PEOPLE_SEARCH_MAX_LIMIT = 20;

export const searchPeopleRequest = z.strictObject({
  params: z.strictObject({}),
  query: z.strictObject({ query: searchText, limit: limitQuery(PEOPLE_SEARCH_MAX_LIMIT, PEOPLE_SEARCH_DEFAULT_LIMIT) }),
});

export const searchPeopleResponse = z.strictObject({
  kind: z.literal("people_search"),
  query: z.string(),
  limit: limitApplied(PEOPLE_SEARCH_MAX_LIMIT),
  results: z.array(personIdentity),
});
export type SearchPeopleResponse = z.output<typeof searchPeopleResponse>;

export const searchPeople = defineOperation({
  id: "search_people",
  request: searchPeopleRequest,
  response: searchPeopleResponse,
  prepare({ snapshot }) {
    // The person keys are the search candidates' only (snapshot/search-keys.ts).
    const index = createSearchIndex(snapshot, undefined, { families: { person: searchEntries.families.person! } });
    const people = new Set(["person"] as const);
    return ({ query }): JsonText => {
      const limit = query.limit;
      const results = index.search(query.query, people, limit);
      return new JsonText(`{"kind":"people_search","query":${JSON.stringify(query.query)},"limit":${limit},"results":[${results.join(",")}]}`);
    };
  },
});
