// The family definitions against the contracts they name: the phases loop over the families, so a
// definition that names a search type, diff spec or staging table the contract lacks (or two
// definitions that claim the same one) would silently drop or double a part of the snapshot.
import { expect, test } from "vitest";
import { families } from "../../compiler/families/index.ts";
import { SEARCH_KEY_FAMILIES } from "../../snapshot/search-keys.ts";
import { familySpecs } from "../../snapshot/specs.ts";

test("each search-key type of the snapshot contract has exactly one family", () => {
  const types = families.flatMap((f) => (f.search === undefined ? [] : [f.search.layout]));
  expect([...types].sort()).toEqual([...SEARCH_KEY_FAMILIES].sort());
});

test("each diff spec of snapshot/specs.ts is named by exactly one family", () => {
  const named = families.flatMap((f) => (f.diff === undefined ? [] : [f.diff]));
  expect([...named].sort()).toEqual(familySpecs.map((s) => s.name).sort());
});

test("family names, files, staging tables and reference types are unique", () => {
  const unique = (values: string[]) => expect(new Set(values).size).toBe(values.length);
  unique(families.map((f) => f.family));
  unique(families.map((f) => f.file));
  unique(families.flatMap((f) => Object.keys(f.staging.tables)));
  unique(families.flatMap((f) => (f.reference === undefined ? [] : [f.reference.type])));
});
