import { expect, test } from "vitest";
import { handleSearchHash, handleSearchKey, normaliseHandle, xAccountId } from "../../snapshot/x-ids.ts";
import { FIXTURE_X_SECRET, compileFixture } from "../_support/fixtures.ts";
import { manifestOf, openSnapshot } from "../_support/compiled-tables.ts";

test("normaliseHandle lower-cases and drops a leading @", () => {
  expect(normaliseHandle("@AuroraSwapHQ")).toBe("auroraswaphq");
  expect(normaliseHandle(" Alice_OnChain ")).toBe("alice_onchain");
});

test("xAccountId is stable, opaque, keyed and insensitive to case and @", () => {
  const id = xAccountId("secret-1", "@Alice_OnChain");
  expect(id).toMatch(/^xa_[a-z2-7]{26}$/);
  expect(xAccountId("secret-1", "alice_onchain")).toBe(id);
  expect(xAccountId("secret-2", "alice_onchain")).not.toBe(id);
  expect(id).not.toContain("alice");
});

test("handleSearchHash with the search key derived from the compile secret finds the account in x_handle_index", async () => {
  const db = openSnapshot(await compileFixture("valid"));
  expect(manifestOf(db)).not.toHaveProperty("x_handle_search_key");
  const searchKey = handleSearchKey(FIXTURE_X_SECRET);
  const found = db.prepare("SELECT x_account_id FROM x_handle_index WHERE handle_hash = ?").pluck();
  expect(found.get(handleSearchHash(searchKey, "@ALICE_ONCHAIN"))).toBe(xAccountId(FIXTURE_X_SECRET, "alice_onchain"));
  expect(found.get(handleSearchHash(searchKey, "hidden_acct"))).toBeUndefined();
  db.close();
});
