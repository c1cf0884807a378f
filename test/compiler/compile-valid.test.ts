// fixtures/valid compiles, and every family's compiled rows equal the expected rows.
import type Database from "better-sqlite3";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { SNAPSHOT_FORMAT_VERSION } from "../../snapshot/schema.ts";
import { FIXTURE_X_SECRET, compileFixture } from "../_support/fixtures.ts";
import { xAccountId } from "../../snapshot/x-ids.ts";
import { manifestOf, openSnapshot, rows } from "../_support/compiled-tables.ts";

let db: Database.Database;
beforeAll(async () => {
  db = openSnapshot(await compileFixture("valid"));
});
afterAll(() => db.close());

describe("compileSnapshot on fixtures/valid", () => {
  test("projects", () => {
    expect(rows(db, "SELECT * FROM projects ORDER BY id")).toEqual([
      { id: "proj_aurora", slug: "aurora-swap", name: "Aurora Swap", feature_count: 2, event_count: 2, round_count: 2 },
      { id: "proj_beacon", slug: "beacon-lend", name: "Beacon Lend", feature_count: 22, event_count: 21, round_count: 21 },
      { id: "proj_cobalt", slug: "cobalt-chain", name: "Cobalt Chain", feature_count: 0, event_count: 0, round_count: 0 },
      { id: "proj_delta", slug: "delta-bridge", name: "Delta Bridge", feature_count: 0, event_count: 0, round_count: 0 },
      { id: "proj_echo", slug: "echo-dao", name: "Echo DAO", feature_count: 1, event_count: 0, round_count: 0 },
    ]);
  });

  test("project features, events, rounds and TVL", () => {
    expect(rows(db, "SELECT * FROM project_features WHERE project_id <> 'proj_beacon' ORDER BY project_id, position")).toEqual([
      { project_id: "proj_aurora", position: 1, feature_id: "feat_aurora_pool", feature_name: "liquidity pools", display_name: "Liquidity Pools",
        category: "defi", status: "active", primary_url: "https://example.com/feat_aurora_pool", docs_url: null,
        app_url: "https://app.example.com/pools", chain_ids: '["ethereum"]', last_verified_at: "2026-02-25T10:00:00.500Z" },
      { project_id: "proj_aurora", position: 2, feature_id: "feat_aurora_swap", feature_name: "token swap", display_name: "Token Swap",
        category: "defi", status: "active", primary_url: "https://example.com/feat_aurora_swap", docs_url: "https://docs.example.com/swap",
        app_url: null, chain_ids: '["ethereum","arbitrum"]', last_verified_at: "2026-02-20T10:00:00.000Z" },
      { project_id: "proj_echo", position: 1, feature_id: "feat_echo_vote", feature_name: "onchain voting", display_name: "Onchain Voting",
        category: "defi", status: "beta", primary_url: "https://example.com/feat_echo_vote", docs_url: null, app_url: null,
        chain_ids: '["ethereum"]', last_verified_at: "2026-01-05T00:00:00.000Z" },
    ]);
    expect(rows(db, "SELECT * FROM project_events WHERE project_id = 'proj_aurora' ORDER BY position")).toEqual([
      { project_id: "proj_aurora", position: 1, id: "pev_aurora_v2", type: "protocol_upgrade", occurred_at: "2026-01-15T09:30:00.000Z" },
      { project_id: "proj_aurora", position: 2, id: "pev_aurora_launch", type: "mainnet_launch", occurred_at: "2025-06-01T00:00:00.000Z" },
    ]);
    expect(rows(db, "SELECT * FROM funding_rounds WHERE project_id = 'proj_aurora' ORDER BY position")).toEqual([
      { project_id: "proj_aurora", position: 1, round_type: "series_a", amount_usd: 12000000.5, announced_at: "2025-05-10T00:00:00.000Z" },
      { project_id: "proj_aurora", position: 2, round_type: "seed", amount_usd: 2500000, announced_at: "2024-03-01T00:00:00.000Z" },
    ]);
    expect(rows(db, "SELECT * FROM project_tvl")).toEqual([{ project_id: "proj_aurora", as_of: "2026-02-28", tvl_usd: 152500000.25 }]);
  });

  test("the 20 kept items of a long list are the most recent, ties by id", () => {
    const ids = (sql: string): unknown[] => db.prepare(sql).pluck().all();
    expect(ids("SELECT feature_id FROM project_features WHERE project_id = 'proj_beacon' ORDER BY position")).toEqual(
      Array.from({ length: 20 }, (_, i) => `feat_beacon_${String(22 - i).padStart(2, "0")}`),
    );
    expect(ids("SELECT id FROM project_events WHERE project_id = 'proj_beacon' ORDER BY position")).toEqual(
      Array.from({ length: 20 }, (_, i) => `pev_beacon_${String(21 - i).padStart(2, "0")}`),
    );
    expect(ids("SELECT count(*) FROM funding_rounds WHERE project_id = 'proj_beacon'")).toEqual([20]);
    expect(ids("SELECT amount_usd FROM funding_rounds WHERE project_id = 'proj_beacon' AND position <= 3 ORDER BY position")).toEqual([21e6, 19e6, 20e6]);
  });

  test("tokens and tokenomics", () => {
    expect(rows(db, "SELECT * FROM tokens ORDER BY id")).toEqual([
      { id: "tok_aur", slug: "aurora", symbol: "AUR", name: "Aurora Token", project_id: "proj_aurora" },
      { id: "tok_bcn", slug: "beacon", symbol: "BCN", name: "Beacon", project_id: "proj_beacon" },
      { id: "tok_btc", slug: "bitcoin", symbol: "BTC", name: "Bitcoin", project_id: null },
      { id: "tok_eth", slug: "ethereum", symbol: "ETH", name: "Ethereum", project_id: null },
      { id: "tok_far", slug: "far-coin", symbol: "FAR", name: "Far Coin", project_id: null },
      // Its project is hidden: the link is dropped (reference_ineligible).
      { id: "tok_orphan", slug: "orphan", symbol: "ORPH", name: "Orphan Token", project_id: null },
      { id: "tok_stale", slug: "stale-coin", symbol: "STALE", name: "Stale Coin", project_id: null },
      { id: "tok_usdc", slug: "usd-coin", symbol: "USDC", name: "USD Coin", project_id: null },
      { id: "tok_weth", slug: "wrapped-ether", symbol: "WETH", name: "Wrapped Ether", project_id: null },
    ]);
    expect(rows(db, "SELECT * FROM tokenomics ORDER BY token_id")).toEqual([
      { token_id: "tok_aur", as_of: "2025-12-01T00:00:00.000Z", model_type: "deflationary" },
      { token_id: "tok_bcn", as_of: "2026-02-15T00:00:00.000Z", model_type: null },
    ]);
    expect(rows(db, "SELECT * FROM tokenomics_allocations ORDER BY token_id, position")).toEqual([
      { token_id: "tok_aur", position: 1, bucket: "team", percent_supply: 20, amount_native: 200000000 },
      { token_id: "tok_aur", position: 2, bucket: "community", percent_supply: 50, amount_native: 500000000 },
      { token_id: "tok_aur", position: 3, bucket: "investors", percent_supply: 30, amount_native: 300000000 },
    ]);
    expect(rows(db, "SELECT * FROM tokenomics_vesting ORDER BY token_id, position")).toEqual([
      { token_id: "tok_aur", position: 1, allocation_bucket: "team", start_at: "2025-01-01T00:00:00.000Z", cliff_at: "2026-01-01T00:00:00.000Z",
        end_at: "2028-01-01T00:00:00.000Z", cadence: "monthly", percent_unlocked_at_tge: 0, amount_native: 200000000 },
      { token_id: "tok_aur", position: 2, allocation_bucket: "investors", start_at: "2025-01-01T00:00:00.000Z", cliff_at: null,
        end_at: "2027-01-01T00:00:00.250Z", cadence: "quarterly", percent_unlocked_at_tge: 10, amount_native: 300000000 },
    ]);
    // The unlock plans: the team's 12 monthly steps up to the 2026-01-01 cliff unlock there at once
    // (steps 1-12 of 36), the investors' 10% at TGE then 9 quarterly steps, the last at end_at.
    expect(rows(db, "SELECT * FROM token_unlock_plans ORDER BY token_id, position")).toEqual([
      { token_id: "tok_aur", position: 1, allocation_bucket: "team", cadence: "monthly", start_ms: Date.parse("2025-01-01T00:00:00.000Z"),
        end_ms: Date.parse("2028-01-01T00:00:00.000Z"), tge_amount: 0, cliff_ms: Date.parse("2026-01-01T00:00:00.000Z"),
        cliff_amount: (200e6 / 36) * 12, first_step: 13, step_count: 36, step_amount: 200e6 / 36 },
      { token_id: "tok_aur", position: 2, allocation_bucket: "investors", cadence: "quarterly", start_ms: Date.parse("2025-01-01T00:00:00.000Z"),
        end_ms: Date.parse("2027-01-01T00:00:00.250Z"), tge_amount: 30e6, cliff_ms: null, cliff_amount: 0, first_step: 1, step_count: 9,
        step_amount: 30e6 },
    ]);
    expect(rows(db, "SELECT * FROM tokenomics_utilities ORDER BY token_id, position")).toEqual([
      { token_id: "tok_aur", position: 1, utility_type: "governance" },
      { token_id: "tok_aur", position: 2, utility_type: "fee_discount" },
      { token_id: "tok_bcn", position: 1, utility_type: "staking" },
    ]);
  });

  test("people, investments and roles", () => {
    expect(rows(db, "SELECT * FROM people ORDER BY id")).toEqual([
      { id: "person_alice", slug: "alice-nakamoto", full_name: "Alice Nakamoto", investment_count: 2, role_count: 2, is_search_candidate: 1 },
      { id: "person_bob", slug: "bob-buterin", full_name: "Bob Buterin", investment_count: 1, role_count: 2, is_search_candidate: 1 },
      // His one role is at a hidden fund: he is no search candidate.
      { id: "person_dave", slug: "dave-lurker", full_name: "Dave Lurker", investment_count: 0, role_count: 0, is_search_candidate: 0 },
      { id: "person_erin", slug: "erin-angel", full_name: "Erin Ängel", investment_count: 1, role_count: 0, is_search_candidate: 1 },
    ]);
    expect(rows(db, "SELECT * FROM person_investments ORDER BY person_id, position")).toEqual([
      { person_id: "person_alice", position: 1, project_id: "proj_beacon" },
      { person_id: "person_alice", position: 2, project_id: "proj_aurora" },
      { person_id: "person_bob", position: 1, project_id: "proj_delta" },
      { person_id: "person_erin", position: 1, project_id: "proj_cobalt" },
    ]);
    expect(rows(db, "SELECT * FROM person_roles ORDER BY person_id, position")).toEqual([
      { person_id: "person_alice", position: 1, project_id: "proj_aurora", is_current: 1 },
      { person_id: "person_alice", position: 2, project_id: "proj_beacon", is_current: 0 },
      { person_id: "person_bob", position: 1, project_id: "proj_echo", is_current: 1 },
      { person_id: "person_bob", position: 2, project_id: "proj_cobalt", is_current: 0 },
    ]);
  });

  test("funds, stocks and events", () => {
    expect(rows(db, "SELECT * FROM funds ORDER BY id")).toEqual([
      { id: "fund_atlas", slug: "atlas-ventures", name: "Atlas Ventures", fund_type: "vc", portfolio_count: 2, partner_count: 1 },
      { id: "fund_borealis", slug: "borealis-capital", name: "Borealis Capital", fund_type: "vc", portfolio_count: 1, partner_count: 1 },
      // Its one round is not verified.
      { id: "fund_cygnus", slug: "cygnus-angels", name: "Cygnus Angels", fund_type: "angel", portfolio_count: 0, partner_count: 0 },
      { id: "fund_draco", slug: "draco-accelerator", name: "Draco Accelerator", fund_type: "accelerator", portfolio_count: 0, partner_count: 0 },
      { id: "fund_eridanus", slug: "eridanus-launchpad", name: "Eridanus Launchpad", fund_type: "launchpad", portfolio_count: 0, partner_count: 0 },
    ]);
    // Latest round first; Borealis backed two Beacon rounds: one entry, the later one's.
    expect(rows(db, "SELECT * FROM fund_portfolio ORDER BY fund_id, position")).toEqual([
      { fund_id: "fund_atlas", position: 1, project_id: "proj_beacon" },
      { fund_id: "fund_atlas", position: 2, project_id: "proj_aurora" },
      { fund_id: "fund_borealis", position: 1, project_id: "proj_beacon" },
    ]);
    // Current roles only (Bob's ended), of visible people (not Carol).
    expect(rows(db, "SELECT * FROM fund_partners ORDER BY fund_id, position")).toEqual([
      { fund_id: "fund_atlas", position: 1, person_id: "person_alice" },
      { fund_id: "fund_borealis", position: 1, person_id: "person_bob" },
    ]);
    expect(rows(db, "SELECT * FROM stocks WHERE id IN ('stk_future', 'stk_orbit') ORDER BY id")).toEqual([
      { id: "stk_future", slug: "future-custody", name: "Future Custody", ticker: "FTCY", exchange: "NYSE", region: "us",
        crypto_angle: "custody", ipo_date: "2026-04-15", is_pre_ipo: 1, story_count: 0 },
      { id: "stk_orbit", slug: "orbit-holdings", name: "Orbit Holdings", ticker: "ORBT", exchange: "NASDAQ", region: "us",
        crypto_angle: "btc-treasury", ipo_date: "2025-11-12", is_pre_ipo: 0, story_count: 2 },
    ]);
    // Newest first; Kumo's one story is not curated.
    expect(rows(db, "SELECT * FROM stock_news ORDER BY stock_id, position")).toEqual([
      { stock_id: "stk_orbit", position: 1, news_id: "story:22222222-2222-4222-a222-222222222222" },
      { stock_id: "stk_orbit", position: 2, news_id: "story:11111111-1111-4111-8111-111111111111" },
    ]);
    expect(db.prepare("SELECT id FROM stocks ORDER BY id").pluck().all()).toEqual(["stk_future", "stk_hanbit", "stk_kumo", "stk_orbit", "stk_tie"]);
    expect(rows(db, "SELECT * FROM events ORDER BY id")).toEqual([
      { id: "evt_berlin", slug: "berlin-node-day", name: "Berlin Node Day", event_type: "meetup", start_date: "2026-03-01", end_date: "2026-03-01",
        city: "Berlin", country: "Germany", website_url: "https://berlin.example.com" },
      { id: "evt_lisbon", slug: "lisbon-builders-week", name: "Lisbon Builders Week", event_type: "hackathon", start_date: "2026-02-27",
        end_date: "2026-03-03", city: "Lisbon", country: "Portugal", website_url: null },
      { id: "evt_mile_high", slug: "mile-high-summit", name: "Mile High Summit", event_type: "conference", start_date: "2026-03-10",
        end_date: "2026-03-12", city: "Denver", country: "United States", website_url: "https://milehigh.example.com" },
      { id: "evt_seoul", slug: "seoul-chain-forum", name: "Seoul Chain Forum", event_type: "conference", start_date: "2026-01-10",
        end_date: "2026-01-11", city: "Seoul", country: "South Korea", website_url: "https://seoul.example.com" },
    ]);
  });

  test("news and their eligible entities, in curator order", () => {
    expect(rows(db, "SELECT * FROM news ORDER BY id")).toEqual([
      { id: "story:11111111-1111-4111-8111-111111111111", title: "Aurora Swap raises a series A", summary: "Aurora Swap closed a round led by Atlas Ventures.",
        published_at: "2026-02-28T15:30:00.000Z", sentiment: "positive", language: "en" },
      { id: "story:22222222-2222-4222-a222-222222222222", title: "Bitcoin steadies", summary: "Bitcoin held its range.",
        published_at: "2026-03-01T07:00:00.123Z", sentiment: "neutral", language: "pt-BR" },
    ]);
    const story = "story:11111111-1111-4111-8111-111111111111";
    expect(rows(db, "SELECT position, type, id, slug, name FROM news_entities WHERE news_id = ? ORDER BY position", story)).toEqual([
      { position: 1, type: "project", id: "proj_aurora", slug: "aurora-swap", name: "Aurora Swap" },
      { position: 2, type: "token", id: "tok_aur", slug: "aurora", name: "Aurora Token" },
      { position: 3, type: "person", id: "person_alice", slug: "alice-nakamoto", name: "Alice Nakamoto" },
      { position: 4, type: "fund", id: "fund_atlas", slug: "atlas-ventures", name: "Atlas Ventures" },
      { position: 5, type: "stock", id: "stk_orbit", slug: "orbit-holdings", name: "Orbit Holdings" },
      { position: 6, type: "narrative", id: "nar_defi", slug: "defi-lending", name: "DeFi Lending" },
    ]);
  });

  test("narratives: visible projects in curated order, the 20 latest timeline entries oldest first, the ranking of fresh signals", () => {
    expect(rows(db, "SELECT * FROM narratives ORDER BY id")).toEqual([
      { id: "nar_defi", slug: "defi-lending", name: "DeFi Lending", project_count: 2 },
      { id: "nar_memes", slug: "memecoins", name: "Memecoins", project_count: 0 },
      { id: "nar_restaking", slug: "restaking", name: "Restaking", project_count: 3 },
      { id: "nar_rwa", slug: "real-world-assets", name: "Real-World Assets", project_count: 1 },
    ]);
    expect(rows(db, "SELECT * FROM narrative_projects WHERE narrative_id = 'nar_defi' ORDER BY position")).toEqual([
      { narrative_id: "nar_defi", position: 1, project_id: "proj_beacon" },
      { narrative_id: "nar_defi", position: 2, project_id: "proj_aurora" },
    ]);
    expect(rows(db, "SELECT * FROM narrative_timeline WHERE narrative_id = 'nar_defi' ORDER BY position")).toEqual([
      { narrative_id: "nar_defi", position: 1, date: "2024-03-01", title: "Aurora Swap raises a seed round" },
      { narrative_id: "nar_defi", position: 2, date: "2025-02-01", title: "Beacon Lend opens isolated markets" },
      { narrative_id: "nar_defi", position: 3, date: "2025-09-15", title: "Lending rates fall below 3%" },
    ]);
    // Memecoins' signal is 2 days old and the hidden one is not served: two ranked, by score.
    expect(rows(db, "SELECT * FROM narrative_rankings ORDER BY position")).toEqual([
      { position: 1, narrative_id: "nar_restaking" },
      { position: 2, narrative_id: "nar_defi" },
    ]);
  });

  test("X accounts: opaque ids, links, and the handle index", () => {
    const id = (handle: string): string => xAccountId(FIXTURE_X_SECRET, handle);
    expect(rows(db, "SELECT * FROM x_accounts ORDER BY id")).toEqual(
      [
        { id: id("AuroraSwapHQ"), linked_type: "project", linked_id: "proj_aurora" },
        { id: id("alice_onchain"), linked_type: "person", linked_id: "person_alice" },
        { id: id("nolink_news"), linked_type: null, linked_id: null },
      ].sort((a, b) => (a.id < b.id ? -1 : 1)),
    );
    expect(id("AuroraSwapHQ")).toMatch(/^xa_[a-z2-7]{26}$/);
    expect(db.prepare("SELECT count(*) FROM x_handle_index").pluck().get()).toBe(3);
  });

  test("manifest", () => {
    const manifest = manifestOf(db);
    expect(manifest.format_version).toBe(SNAPSHOT_FORMAT_VERSION);
    expect(manifest.compiler_version).toBe("0.1.0");
    expect(manifest.reference_time).toBe("2026-03-01T12:00:00.000Z");
    expect(manifest.compiled_at).toBeUndefined();
    expect(manifest.content_hash).toMatch(/^[0-9a-f]{64}$/);
    expect(manifest.snapshots).toEqual({
      fund_rankings: "2026-02-10T00:00:00.000Z",
      market: "2026-03-01T09:00:00.000Z",
      narrative_rankings: "2026-03-01T06:00:00.000Z",
      stock_rankings: null,
      trending_live: "2026-03-01T10:30:00.000Z",
      trending_projects: "2026-02-28T18:00:00.000Z",
    });
    const counts = manifest.row_counts as Record<string, number>;
    expect(counts.projects).toBe(5);
    expect(counts.trending_days).toBe(31);
    for (const [table, n] of Object.entries(counts)) expect(db.prepare(`SELECT count(*) FROM "${table}"`).pluck().get()).toBe(n);
  });

  test("manifest: what the sources curate, before eligibility (hidden and stale records count)", () => {
    expect(manifestOf(db).curated).toEqual({
      events: 6, fund_rankings: 6, funds: 6, market: 9, market_snapshot: 2, narrative_rankings: 4, narratives: 5, news: 4, people: 5,
      project_tvl: 4, projects: 7, stock_rankings: 6, stocks: 6, tokenomics: 2, tokens: 10, top_movers: 9, trending: 19, trending_days: 10, trending_live: 9,
      trending_projects: 6, x_accounts: 4,
    });
  });

  test("manifest: per family, the accepted fields never written, with the records or items carrying each", () => {
    const notPublished = manifestOf(db).not_published as Record<string, Record<string, number>>;
    expect(Object.keys(notPublished)).toEqual(["projects", "tokens", "people", "funds", "stocks", "narratives", "news", "events", "x_accounts", "trending"]);
    expect(notPublished.people).toMatchObject({ bio: 1, "roles[].title": 6, "investments[].amount_usd": 1 });
    expect(notPublished.tokens).toMatchObject({ description: 1, "market.raw": 1, "tokenomics.supply": 1, "tokenomics.model_type.sources": 1 });
    // Fields that are written, or used and not written, are never listed.
    for (const fields of Object.values(notPublished)) {
      for (const field of ["id", "slug", "name", "hidden", "market.rank", "contracts", "features[].review_state", "tvl.mapping.series_id"]) expect(fields).not.toHaveProperty([field]);
    }
  });
});
