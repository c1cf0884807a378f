// Every eligibility rule: the excluded record is absent from the snapshot and counted in the
// manifest under its rule (fixtures/valid holds one or more records for each rule).
import type Database from "better-sqlite3";
import { afterAll, beforeAll, expect, test } from "vitest";
import { eligibilityRules } from "../../compiler/policy.ts";
import { compileFixture } from "../_support/fixtures.ts";
import { manifestOf, openSnapshot } from "../_support/compiled-tables.ts";

let db: Database.Database;
let excluded: Record<string, Record<string, number>>;
beforeAll(async () => {
  db = openSnapshot(await compileFixture("valid"));
  excluded = manifestOf(db).excluded as Record<string, Record<string, number>>;
});
afterAll(() => db.close());

const has = (sql: string, ...params: unknown[]): boolean => db.prepare(sql).get(...params) !== undefined;

test("the manifest counts every exclusion per family and rule", () => {
  expect(excluded).toEqual({
    events: { hidden: 1, deleted: 0, event_dates_not_validated: 1 },
    funds: { hidden: 1, deleted: 0, over_list_cap: 0 },
    narratives: { hidden: 1, deleted: 0, narrative_signal_stale: 1, reference_ineligible: 1, over_list_cap: 0 },
    news: { hidden: 1, deleted: 0, news_not_curated: 1, reference_ineligible: 2, over_list_cap: 0 },
    people: { hidden: 1, deleted: 0, investment_not_verified: 1, reference_ineligible: 3, over_list_cap: 0 },
    projects: { hidden: 1, deleted: 1, feature_not_reviewed: 1, event_not_verified: 1, round_not_verified: 1,
      tvl_mapping_inconsistent: 2, tvl_stale: 1, trend_observation_stale: 1, over_list_cap: 4 },
    stocks: { hidden: 0, deleted: 1 },
    tokens: { hidden: 1, deleted: 0, tokenomics_field_stale: 1, tokenomics_field_low_confidence: 1, market_observation_stale: 1,
      market_outside_top_200: 1, market_ineligible: 1, reference_ineligible: 1, over_list_cap: 0 },
    trending: { trending_signal_stale: 1, reference_ineligible: 1 },
    x_accounts: { hidden: 1, deleted: 0 },
  });
  const counted = new Set(Object.values(excluded).flatMap((rules) => Object.entries(rules).filter(([, n]) => n > 0).map(([rule]) => rule)));
  expect([...counted].sort()).toEqual(eligibilityRules.map((r) => r.id).sort());
});

test("hidden and deleted records are absent", () => {
  expect(has("SELECT 1 FROM projects WHERE id IN ('proj_hidden', 'proj_deleted')")).toBe(false);
  expect(has("SELECT 1 FROM tokens WHERE id = 'tok_hidden'")).toBe(false);
  expect(has("SELECT 1 FROM people WHERE id = 'person_carol'")).toBe(false);
  expect(has("SELECT 1 FROM funds WHERE id = 'fund_hidden'")).toBe(false);
  expect(has("SELECT 1 FROM stocks WHERE id = 'stk_gone'")).toBe(false);
  expect(has("SELECT 1 FROM news WHERE id = 'story:44444444-4444-4444-b444-444444444444'")).toBe(false);
  expect(has("SELECT 1 FROM events WHERE id = 'evt_hidden'")).toBe(false);
  expect(db.prepare("SELECT count(*) FROM x_accounts").pluck().get()).toBe(3);
});

test("feature_not_reviewed, event_not_verified, round_not_verified", () => {
  expect(has("SELECT 1 FROM project_features WHERE feature_id = 'feat_aurora_draft'")).toBe(false);
  expect(has("SELECT 1 FROM project_events WHERE id = 'pev_aurora_rumour'")).toBe(false);
  expect(has("SELECT 1 FROM funding_rounds WHERE round_type = 'series_b'")).toBe(false);
});

test("investment_not_verified and reference_ineligible links of people", () => {
  expect(has("SELECT 1 FROM person_investments WHERE project_id IN ('proj_echo', 'proj_hidden')")).toBe(false);
  expect(has("SELECT 1 FROM person_roles WHERE project_id = 'proj_deleted'")).toBe(false);
});

test("event_dates_not_validated and news_not_curated", () => {
  expect(has("SELECT 1 FROM events WHERE id = 'evt_tbd'")).toBe(false);
  expect(has("SELECT 1 FROM news WHERE id = 'story:33333333-3333-4333-9333-333333333333'")).toBe(false);
  expect(has("SELECT 1 FROM news_entities WHERE id = 'proj_hidden'")).toBe(false);
});

test("tokenomics fields that are stale or of low confidence are dropped, field by field", () => {
  expect(db.prepare("SELECT model_type FROM tokenomics WHERE token_id = 'tok_bcn'").pluck().get()).toBeNull();
  expect(has("SELECT 1 FROM tokenomics_allocations WHERE token_id = 'tok_bcn'")).toBe(false);
  expect(has("SELECT 1 FROM tokenomics_utilities WHERE token_id = 'tok_bcn'")).toBe(true);
});

test("market observations: stale, outside the top 200, ineligible", () => {
  expect(db.prepare("SELECT token_id FROM market_assets ORDER BY position").pluck().all()).toEqual([
    "tok_btc", "tok_eth", "tok_usdc", "tok_aur", "tok_bcn", "tok_orphan",
  ]);
});

test("TVL: inconsistent mapping, series mismatch and stale observation give no row", () => {
  expect(db.prepare("SELECT project_id FROM project_tvl").pluck().all()).toEqual(["proj_aurora"]);
});

test("trend_observation_stale, trending_signal_stale and reference_ineligible trending entries", () => {
  expect(has("SELECT 1 FROM trending_projects WHERE project_id IN ('proj_cobalt', 'proj_hidden')")).toBe(false);
  expect(has("SELECT 1 FROM trending_entities WHERE day = 'live' AND entity_id IN ('tok_eth', 'proj_hidden')")).toBe(false);
});

test("a token linked to an excluded project is kept without the link", () => {
  expect(has("SELECT 1 FROM tokens WHERE id = 'tok_orphan'")).toBe(true);
});
