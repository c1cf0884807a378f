// Every field rule of every family, broken once: the one problem the compiler reports, word for
// word. Each message names the value it is about (escaped, cut when long) and, for a rule of
// characters, the first character that breaks it and where, or else the length; a value that
// differs from an allowed one only in its spelling is offered the allowed one. A last test walks
// every family's schema and fails while a field with a rule has no row here.
import { describe, expect, it } from "vitest";
import { families } from "../../compiler/families/index.ts";
import { internalFields } from "../../compiler/families/source-fields.ts";
import { familyJsonSchemas } from "../../compiler/json-schema.ts";
import { validateBatch } from "../../compiler/validate-lines.ts";

type Json = Record<string, unknown>;
type Path = ReadonlyArray<string | number>;

const AT = "2026-02-28T12:00:00Z";
const USDC = "0xA0b86991c6218b36c1d19D4a2e9Eb0cE3606eB48";

/** One valid record of each family, with one item in every list, and every optional field that has a rule. */
const bases: Record<string, Json> = {
  projects: {
    id: "p1", slug: "aurora", name: "Aurora", description: "d", links: [], status: "live", chains: ["ethereum"],
    features: [{
      feature_id: "f1", feature_name: "Swap", display_name: "Swap", category: "dex", status: "live", primary_url: "https://a.example/",
      docs_url: "https://a.example/docs", app_url: "https://a.example/app", chain_ids: ["ethereum"], last_verified_at: AT, review_state: "reviewed",
    }],
    events: [{ id: "e1", type: "mainnet_launch", occurred_at: AT, verified: true, title: "t", description: "d" }],
    funding: [{ id: "r1", round_type: "seed", amount_usd: 1, announced_at: AT, verified: true, investors: [{ type: "fund", id: "fund_a" }] }],
    tvl: { mapping: { series_id: "s1", state: "confirmed" }, observations: [{ date: "2026-02-28", tvl_usd: 1, series_id: "s1" }] },
    trend: [{ observed_at: AT, hot_tier: "hot", score: 1 }],
  },
  tokens: {
    id: "t1", slug: "usd-coin", symbol: "USDC", name: "USD Coin", project_id: "p1", benchmark: null,
    contracts: [{ chain_id: "eip155:1", address: USDC }], description: "d",
    market: { observed_at: AT, rank: 6, price_usd: 1, market_cap_usd: 1, volume_24h_usd: 1, change_24h_pct: 0, change_7d_pct: 0, market_eligible: true },
    tokenomics: {
      model_type: { value: "fixed_supply", verified_at: AT, confidence: 0.9 },
      allocations: { value: [{ bucket: "team", percent_supply: 20, amount_native: 1 }], verified_at: AT, confidence: 0.9 },
      vesting_schedules: {
        value: [{ allocation_bucket: "team", start_at: AT, cliff_at: AT, end_at: "2027-02-28T12:00:00Z", cadence: "monthly", percent_unlocked_at_tge: 0, amount_native: 1 }],
        verified_at: AT, confidence: 0.9,
      },
      utilities: { value: [{ utility_type: "governance" }], verified_at: AT, confidence: 0.9 },
      description: "d",
    },
  },
  people: {
    id: "person_a", slug: "alice", full_name: "Alice", bio: "b",
    investments: [{ project_id: "p1", round_id: "r1", invested_at: AT, verified: true, amount_usd: 1 }],
    roles: [{ project_id: "p1", title: "CEO", is_current: true, started_at: "2024-01-01" }, { fund_id: "fund_a", title: "Partner", is_current: true, started_at: "2024-01-01" }],
  },
  funds: {
    id: "fund_a", slug: "atlas", name: "Atlas", fund_type: "vc", score: 1, score_updated_at: AT, description: "d", website: "w", portfolio_count: 1,
  },
  stocks: {
    id: "stk_kumo", slug: "kumo", name: "Kumo", ticker: "KUMO", exchange: "NASDAQ", region: "us", crypto_angle: "exchange", ipo_date: "2026-01-01",
    is_pre_ipo: false, score: 1, native_name: "n", currency: "USD", sector: "s", description: "d", website: "w",
  },
  news: {
    id: "story:11111111-1111-4111-8111-111111111111", title: "t", summary: "s", published_at: AT, sentiment: "positive", language: "en",
    curated: true, entities: [{ type: "project", id: "p1" }], url: "u", body: "b",
  },
  events: {
    id: "evt_summit", slug: "summit", name: "Summit", event_type: "conference", start_date: "2026-03-10", end_date: "2026-03-11",
    city: "Denver", country: "United States", website_url: "https://summit.example/", dates_validated: true, description: "d", tags: ["t"],
  },
  x_accounts: { handle: "AuroraHQ", linked_entity: { type: "project", id: "p1" }, profile_url: "u", display_name: "d", bio: "b" },
  narratives: {
    id: "nar_restaking", slug: "restaking", name: "Restaking", projects: ["p1"], timeline: [{ date: "2026-02-01", title: "t" }],
    signal: { score: 1, observed_at: AT }, description: "d",
  },
  trending: { entity: { type: "project", id: "p1" }, day: "live", observed_at: AT, score: 1, heat: 1, signal_count: 1, summary: "s", clicks: 1 },
};

/** A broken field: `set` replaces the value at a path (undefined removes it); the problem is reported at `at` (default: that path). */
interface Row {
  family: string;
  set: Path;
  value: unknown;
  at?: string;
  message: string;
}

const row = (family: string, set: Path, value: unknown, message: string, at?: string): Row => ({ family, set, value, message, ...(at ? { at } : {}) });
const long = "a".repeat(201);

const rows: Row[] = [
  // Ids, slugs and names: every family shares these rules.
  row("projects", ["id"], "bit financial", 'expected an id of 1-160 characters [A-Za-z0-9_.:-]: "bit financial" has " " (a space) at character 4; did you mean "bit-financial"?'),
  row("projects", ["id"], "_p1", 'expected an id of 1-160 characters [A-Za-z0-9_.:-]: "_p1" may not start with "_"; did you mean "p1"?'),
  row("projects", ["slug"], "bit_financial", 'expected a slug of 1-160 characters [a-z0-9-]: "bit_financial" has "_" at character 4; did you mean "bit-financial"?'),
  row("projects", ["slug"], "shinobi-", 'expected a slug of 1-160 characters [a-z0-9-]: "shinobi-" may not end with "-"; did you mean "shinobi"?'),
  row("projects", ["slug"], "trending", 'expected a slug other than "trending" (the path of an operation)'),
  row("projects", ["name"], long, `expected at most 200 characters, not 201: "${"a".repeat(60)}"…`),
  row("projects", ["hidden"], "yes", 'expected a boolean, not the string "yes"'),
  row("projects", ["deleted"], 1, "expected a boolean, not the number 1"),
  row("projects", ["description"], { en: "d" }, "expected a string, not an object"),
  row("projects", ["links"], "https://a.example", 'expected an array, not the string "https://a.example"'),
  row("projects", ["status"], 3, "expected a string, not the number 3"),
  row("projects", ["chains"], "ethereum", 'expected an array, not the string "ethereum"'),
  row("projects", ["chains"], ["ethereum", 1], "expected a string, not the number 1", "chains[1]"),
  row("projects", ["features"], {}, "expected an array, not an object"),
  row("projects", ["features", 0, "feature_id"], "Swap (v2)", 'expected an id of 1-160 characters [A-Za-z0-9_.:-]: "Swap (v2)" has " " (a space) at character 5; did you mean "Swap-v2"?'),
  row("projects", ["features", 0, "feature_name"], "", "expected a non-empty string"),
  row("projects", ["features", 0, "display_name"], "Swap\u0007", 'expected text without control characters: "Swap\\u0007" has U+0007 at character 5'),
  row("projects", ["features", 0, "category"], "Lending & Borrowing", 'expected lower-case snake_case of 1-64 characters (a-z, 0-9, single underscores, starting with a letter): "Lending & Borrowing" has "L" at character 1; did you mean "lending_borrowing"?'),
  row("projects", ["features", 0, "status"], "live__beta", 'expected lower-case snake_case of 1-32 characters (a-z, 0-9, single underscores, starting with a letter): "live__beta" has "__" at character 5; did you mean "live_beta"?'),
  row("projects", ["features", 0, "primary_url"], "app.aurora.example", 'expected an http(s) URL: "app.aurora.example" has no scheme: write it with "https://"'),
  row("projects", ["features", 0, "docs_url"], "ftp://docs.example/", 'expected an http(s) URL: "ftp://docs.example/" has the scheme "ftp:"'),
  row("projects", ["features", 0, "app_url"], "https://app.example:70000/", 'expected an http(s) URL: "https://app.example:70000/" is not one that parses (its host or port)'),
  row("projects", ["features", 0, "chain_ids"], "ethereum", 'expected an array, not the string "ethereum"'),
  row("projects", ["features", 0, "chain_ids"], [""], "expected a non-empty string", "features[0].chain_ids[0]"),
  row("projects", ["features", 0, "last_verified_at"], "2026-02-28 12:00:00", 'expected an ISO 8601 UTC date-time such as 2026-03-01T12:00:00Z: "2026-02-28 12:00:00" has " " (a space) at character 11: write "T" between the date and the time'),
  row("projects", ["features", 0, "review_state"], "Reviewed", 'expected one of: unreviewed, reviewed, rejected; not "Reviewed": did you mean "reviewed"?'),
  row("projects", ["events"], "launch", 'expected an array, not the string "launch"'),
  row("projects", ["events", 0, "id"], "", 'expected an id of 1-160 characters [A-Za-z0-9_.:-]: the value is empty'),
  row("projects", ["events", 0, "type"], "Mainnet Launch", 'expected lower-case snake_case of 1-64 characters (a-z, 0-9, single underscores, starting with a letter): "Mainnet Launch" has "M" at character 1; did you mean "mainnet_launch"?'),
  row("projects", ["events", 0, "occurred_at"], "2026-02-28", 'expected an ISO 8601 UTC date-time such as 2026-03-01T12:00:00Z: "2026-02-28" is a date without a time: write, e.g., "2026-02-28T00:00:00Z"'),
  row("projects", ["events", 0, "verified"], "true", 'expected a boolean, not the string "true"'),
  row("projects", ["events", 0, "title"], null, "expected a string, not null"),
  row("projects", ["events", 0, "description"], ["d"], "expected a string, not an array of 1 item"),
  row("projects", ["funding"], null, "expected an array, not null"),
  row("projects", ["funding", 0, "id"], "r/1", 'expected an id of 1-160 characters [A-Za-z0-9_.:-]: "r/1" has "/" at character 2; did you mean "r-1"?'),
  row("projects", ["funding", 0, "round_type"], "series-a", 'expected lower-case snake_case of 1-64 characters (a-z, 0-9, single underscores, starting with a letter): "series-a" has "-" at character 7; did you mean "series_a"?'),
  row("projects", ["funding", 0, "amount_usd"], -5, "expected a number >= 0, not -5"),
  row("projects", ["funding", 0, "announced_at"], "2026-02-28T12:00:00+02:00", 'expected an ISO 8601 UTC date-time such as 2026-03-01T12:00:00Z: "2026-02-28T12:00:00+02:00" has an offset: convert it to UTC and end it with "Z"'),
  row("projects", ["funding", 0, "verified"], undefined, "required"),
  row("projects", ["funding", 0, "investors"], { type: "fund" }, "expected an array, not an object"),
  row("projects", ["funding", 0, "investors", 0, "type"], "vc", 'expected one of: fund, person; not "vc"'),
  row("projects", ["funding", 0, "investors", 0, "id"], "a16z crypto", 'expected an id of 1-160 characters [A-Za-z0-9_.:-]: "a16z crypto" has " " (a space) at character 5; did you mean "a16z-crypto"?'),
  row("projects", ["tvl"], [], "expected an object, not an array of 0 items"),
  row("projects", ["tvl", "mapping"], undefined, "required"),
  row("projects", ["tvl", "mapping", "series_id"], 42, "expected a string, not the number 42"),
  row("projects", ["tvl", "mapping", "state"], "mapped", 'expected one of: confirmed, conflicting, unmapped; not "mapped"'),
  row("projects", ["tvl", "observations"], Array.from({ length: 1001 }, () => ({ date: "2026-02-28", tvl_usd: 1, series_id: "s1" })), "expected at most 1000 items, not 1001"),
  row("projects", ["tvl", "observations", 0, "date"], "2026-02-30", "no such date: 2026-02-30 (February 2026 has 28 days)"),
  row("projects", ["tvl", "observations", 0, "tvl_usd"], "1000", 'expected a number, not the string "1000"'),
  row("projects", ["tvl", "observations", 0, "series_id"], "", "expected a non-empty string"),
  row("projects", ["trend"], "hot", 'expected an array, not the string "hot"'),
  row("projects", ["trend", 0, "observed_at"], "2026-02-28T12:00:00", 'expected an ISO 8601 UTC date-time such as 2026-03-01T12:00:00Z: "2026-02-28T12:00:00" has no zone: end it with "Z" (UTC)'),
  row("projects", ["trend", 0, "hot_tier"], "HOT", 'expected one of: viral, hot, rising, early, watch; not "HOT": did you mean "hot"?'),
  row("projects", ["trend", 0, "score"], "9.5", 'expected a number, not the string "9.5"'),

  row("tokens", ["id"], "usd coin", 'expected an id of 1-160 characters [A-Za-z0-9_.:-]: "usd coin" has " " (a space) at character 4; did you mean "usd-coin"?'),
  row("tokens", ["slug"], "usd₮0", 'expected a slug of 1-160 characters [a-z0-9-]: "usd₮0" has "₮" (U+20AE) at character 4; did you mean "usd-0"?'),
  row("tokens", ["symbol"], "avex!", 'expected a symbol of 1-20 characters [A-Za-z0-9.$-]: "avex!" has "!" at character 5'),
  row("tokens", ["symbol"], "SUPERLONGTOKENSYMBOL1", 'expected a symbol of 1-20 characters [A-Za-z0-9.$-]: "SUPERLONGTOKENSYMBOL1" has 21 characters, more than 20'),
  row("tokens", ["name"], "USD\u202eCoin", 'expected text without bidirectional override or isolate characters: "USD\\u202eCoin" has U+202E at character 4'),
  row("tokens", ["project_id"], "proj aurora", 'expected an id of 1-160 characters [A-Za-z0-9_.:-]: "proj aurora" has " " (a space) at character 5; did you mean "proj-aurora"?'),
  row("tokens", ["benchmark"], "BTC", 'expected one of: btc, eth; not "BTC": did you mean "btc"?'),
  row("tokens", ["contracts"], Array.from({ length: 101 }, (_, i) => ({ chain_id: `eip155:${i + 1}`, address: USDC })), "expected at most 100 items, not 101"),
  row("tokens", ["contracts", 0, "chain_id"], 137, 'expected a CAIP-2 chain id such as "eip155:1", not the number 137: for the EVM chain 137, write "eip155:137"'),
  row("tokens", ["contracts", 0, "chain_id"], 101, 'expected a CAIP-2 chain id such as "eip155:1", not the number 101: token lists use 101 for solana: write "solana:5eykt4UsFv8P8NJdTREpY1vzqKqZKvdp"'),
  row("tokens", ["contracts", 0, "address"], "0xA0b86991c6218b36c1d19D4a2e9Eb0cE3606eB4", 'expected an eip155 (EVM) address: 0x and 40 hex digits: "0xA0b86991c6218b36c1d19D4a2e9Eb0cE3606eB4" has 41 characters, fewer than 42'),
  row("tokens", ["hidden"], null, "expected a boolean, not null"),
  row("tokens", ["deleted"], "false", 'expected a boolean, not the string "false"'),
  row("tokens", ["description"], 1, "expected a string, not the number 1"),
  row("tokens", ["market"], "n/a", 'expected an object, not the string "n/a"'),
  row("tokens", ["market", "observed_at"], "2026-02-28t12:00:00z", 'expected an ISO 8601 UTC date-time such as 2026-03-01T12:00:00Z: "2026-02-28t12:00:00z" has a lower-case "t" or "z": write them upper-case'),
  row("tokens", ["market", "rank"], 1.5, "expected an integer, not 1.5"),
  row("tokens", ["market", "price_usd"], -0.01, "expected a number >= 0, not -0.01"),
  row("tokens", ["market", "market_cap_usd"], null, "expected a number, not null"),
  row("tokens", ["market", "volume_24h_usd"], "12", 'expected a number, not the string "12"'),
  row("tokens", ["market", "change_24h_pct"], "-1.5%", 'expected a number, not the string "-1.5%"'),
  row("tokens", ["market", "change_7d_pct"], undefined, "required"),
  row("tokens", ["market", "market_eligible"], "no", 'expected a boolean, not the string "no"'),
  row("tokens", ["tokenomics"], [], "expected an object, not an array of 0 items"),
  row("tokens", ["tokenomics", "model_type"], "fixed_supply", 'expected an object, not the string "fixed_supply"'),
  row("tokens", ["tokenomics", "model_type", "value"], "Fixed Supply", 'expected lower-case snake_case of 1-64 characters (a-z, 0-9, single underscores, starting with a letter): "Fixed Supply" has "F" at character 1; did you mean "fixed_supply"?'),
  row("tokens", ["tokenomics", "model_type", "verified_at"], 1772280000, "expected a string, not the number 1772280000"),
  row("tokens", ["tokenomics", "model_type", "confidence"], 90, "expected a number <= 1, not 90"),
  row("tokens", ["tokenomics", "allocations"], null, "expected an object, not null"),
  row("tokens", ["tokenomics", "allocations", "value"], { team: 20 }, "expected an array, not an object"),
  row("tokens", ["tokenomics", "allocations", "value", 0, "bucket"], "Team_", 'expected lower-case snake_case of 1-64 characters (a-z, 0-9, single underscores, starting with a letter): "Team_" has "T" at character 1; did you mean "team"?'),
  row("tokens", ["tokenomics", "allocations", "value", 0, "percent_supply"], 120, "expected a number <= 100, not 120"),
  row("tokens", ["tokenomics", "allocations", "value", 0, "amount_native"], -1, "expected a number >= 0, not -1"),
  row("tokens", ["tokenomics", "allocations", "verified_at"], "yesterday", 'expected an ISO 8601 UTC date-time such as 2026-03-01T12:00:00Z: "yesterday" is not one'),
  row("tokens", ["tokenomics", "allocations", "confidence"], -0.1, "expected a number >= 0, not -0.1"),
  row("tokens", ["tokenomics", "vesting_schedules"], [], "expected an object, not an array of 0 items"),
  row("tokens", ["tokenomics", "vesting_schedules", "value"], "monthly", 'expected an array, not the string "monthly"'),
  row("tokens", ["tokenomics", "vesting_schedules", "value", 0, "allocation_bucket"], "public sale", 'expected lower-case snake_case of 1-64 characters (a-z, 0-9, single underscores, starting with a letter): "public sale" has " " (a space) at character 7; did you mean "public_sale"?'),
  row("tokens", ["tokenomics", "vesting_schedules", "value", 0, "start_at"], "2026-02-28", 'expected an ISO 8601 UTC date-time such as 2026-03-01T12:00:00Z: "2026-02-28" is a date without a time: write, e.g., "2026-02-28T00:00:00Z"'),
  row("tokens", ["tokenomics", "vesting_schedules", "value", 0, "cliff_at"], "", 'expected an ISO 8601 UTC date-time such as 2026-03-01T12:00:00Z: "" is not one'),
  row("tokens", ["tokenomics", "vesting_schedules", "value", 0, "end_at"], undefined, "required"),
  row("tokens", ["tokenomics", "vesting_schedules", "value", 0, "cadence"], "1m", 'expected one of: daily, weekly, monthly, quarterly, yearly, linear; not "1m"'),
  // The unlock rule needs a schedule that ends after it starts and a cliff inside it.
  row("tokens", ["tokenomics", "vesting_schedules", "value", 0, "end_at"], AT, "expected a time after start_at 2026-02-28T12:00:00Z"),
  row("tokens", ["tokenomics", "vesting_schedules", "value", 0, "cliff_at"], "2028-01-01T00:00:00Z", "expected a time from start_at 2026-02-28T12:00:00Z to end_at 2027-02-28T12:00:00Z"),
  row("tokens", ["tokenomics", "vesting_schedules", "value", 0, "percent_unlocked_at_tge"], "10%", 'expected a number, not the string "10%"'),
  row("tokens", ["tokenomics", "vesting_schedules", "value", 0, "amount_native"], -2, "expected a number >= 0, not -2"),
  row("tokens", ["tokenomics", "vesting_schedules", "verified_at"], null, "expected a string, not null"),
  row("tokens", ["tokenomics", "vesting_schedules", "confidence"], "high", 'expected a number, not the string "high"'),
  row("tokens", ["tokenomics", "utilities"], ["governance"], "expected an object, not an array of 1 item"),
  row("tokens", ["tokenomics", "utilities", "value"], Array.from({ length: 101 }, () => ({ utility_type: "gas" })), "expected at most 100 items, not 101"),
  row("tokens", ["tokenomics", "utilities", "value", 0, "utility_type"], "fee-discount", 'expected lower-case snake_case of 1-64 characters (a-z, 0-9, single underscores, starting with a letter): "fee-discount" has "-" at character 4; did you mean "fee_discount"?'),
  row("tokens", ["tokenomics", "utilities", "verified_at"], "2026-13-01T00:00:00Z", "no such date: 2026-13-01 (there is no month 13)"),
  row("tokens", ["tokenomics", "utilities", "confidence"], 1.2, "expected a number <= 1, not 1.2"),
  row("tokens", ["tokenomics", "description"], 5, "expected a string, not the number 5"),

  row("people", ["id"], "alice.eth!", 'expected an id of 1-160 characters [A-Za-z0-9_.:-]: "alice.eth!" has "!" at character 10; did you mean "alice.eth"?'),
  row("people", ["slug"], "Alice", 'expected a slug of 1-160 characters [a-z0-9-]: "Alice" has "A" at character 1; did you mean "alice"?'),
  row("people", ["full_name"], "Alice\nNakamoto", 'expected text without control characters: "Alice\\nNakamoto" has U+000A at character 6'),
  row("people", ["hidden"], "no", 'expected a boolean, not the string "no"'),
  row("people", ["deleted"], 0, "expected a boolean, not the number 0"),
  row("people", ["bio"], false, "expected a string, not the boolean false"),
  row("people", ["investments"], { p1: true }, "expected an array, not an object"),
  row("people", ["investments", 0, "project_id"], "", "expected an id of 1-160 characters [A-Za-z0-9_.:-]: the value is empty"),
  row("people", ["investments", 0, "round_id"], "seed round", 'expected an id of 1-160 characters [A-Za-z0-9_.:-]: "seed round" has " " (a space) at character 5; did you mean "seed-round"?'),
  row("people", ["investments", 0, "invested_at"], "2024", 'expected an ISO 8601 UTC date-time such as 2026-03-01T12:00:00Z: "2024" is not one'),
  row("people", ["investments", 0, "verified"], null, "expected a boolean, not null"),
  row("people", ["investments", 0, "amount_usd"], "1M", 'expected a number, not the string "1M"'),
  row("people", ["roles"], "CEO", 'expected an array, not the string "CEO"'),
  row("people", ["roles", 0, "project_id"], 7, "expected a string, not the number 7"),
  row("people", ["roles", 0, "title"], ["CEO"], "expected a string, not an array of 1 item"),
  row("people", ["roles", 0, "is_current"], "yes", 'expected a boolean, not the string "yes"'),
  row("people", ["roles", 0, "started_at"], "2024-01-01T00:00:00Z", 'expected a date YYYY-MM-DD: "2024-01-01T00:00:00Z" has a time: write "2024-01-01"'),

  row("funds", ["id"], "fund a", 'expected an id of 1-160 characters [A-Za-z0-9_.:-]: "fund a" has " " (a space) at character 5; did you mean "fund-a"?'),
  row("funds", ["slug"], "-atlas", 'expected a slug of 1-160 characters [a-z0-9-]: "-atlas" may not start with "-"; did you mean "atlas"?'),
  row("funds", ["name"], "Atlas \u202eVentures", 'expected text without bidirectional override or isolate characters: "Atlas \\u202eVentures" has U+202E at character 7'),
  row("funds", ["fund_type"], "Family Office", 'expected one of: vc, angel, accelerator, launchpad, cvc, family-office; not "Family Office"'),
  row("funds", ["score"], "high", 'expected a number, not the string "high"'),
  row("funds", ["score_updated_at"], "2026-02-28T12:00Z", 'expected an ISO 8601 UTC date-time such as 2026-03-01T12:00:00Z: "2026-02-28T12:00Z" is not one'),
  row("funds", ["hidden"], 1, "expected a boolean, not the number 1"),
  row("funds", ["deleted"], "", 'expected a boolean, not the string ""'),
  row("funds", ["description"], null, "expected a string, not null"),
  row("funds", ["website"], { url: "w" }, "expected a string, not an object"),
  row("funds", ["portfolio_count"], "12", 'expected a number, not the string "12"'),

  row("stocks", ["id"], "stk kumo", 'expected an id of 1-160 characters [A-Za-z0-9_.:-]: "stk kumo" has " " (a space) at character 4; did you mean "stk-kumo"?'),
  row("stocks", ["slug"], "Kumo", 'expected a slug of 1-160 characters [a-z0-9-]: "Kumo" has "K" at character 1; did you mean "kumo"?'),
  row("stocks", ["name"], "", "expected a non-empty string"),
  row("stocks", ["ticker"], "kumo", 'expected a ticker of 1-16 characters [A-Z0-9.-]: "kumo" has "k" at character 1; did you mean "KUMO"?'),
  row("stocks", ["exchange"], "NASDAQ GLOBAL SELECT MARKET (USA)", 'expected at most 32 characters, not 33: "NASDAQ GLOBAL SELECT MARKET (USA)"'),
  row("stocks", ["region"], "US", 'expected one of: us, hk, kr, jp, tw, uk, au, br; not "US": did you mean "us"?'),
  row("stocks", ["crypto_angle"], "bitcoin", 'expected one of: btc-treasury, eth-treasury, spot-etf, mining, exchange, custody, tokenizer, stablecoin, infrastructure, diversified; not "bitcoin"'),
  row("stocks", ["ipo_date"], "2026/01/01", 'expected a date YYYY-MM-DD: "2026/01/01" is not one'),
  row("stocks", ["is_pre_ipo"], "false", 'expected a boolean, not the string "false"'),
  row("stocks", ["hidden"], null, "expected a boolean, not null"),
  row("stocks", ["deleted"], [], "expected a boolean, not an array of 0 items"),
  row("stocks", ["score"], "A", 'expected a number, not the string "A"'),
  row("stocks", ["native_name"], 1, "expected a string, not the number 1"),
  row("stocks", ["currency"], null, "expected a string, not null"),
  row("stocks", ["sector"], 2, "expected a string, not the number 2"),
  row("stocks", ["description"], true, "expected a string, not the boolean true"),
  row("stocks", ["website"], [], "expected a string, not an array of 0 items"),

  row("news", ["id"], "story:42", 'expected story:<uuid> (lower-case hex, RFC 4122 version 1-5): "story:42" has 8 characters, not 42'),
  row("news", ["id"], "11111111-1111-4111-8111-111111111111", 'expected story:<uuid> (lower-case hex, RFC 4122 version 1-5): "11111111-1111-4111-8111-111111111111" does not start with "story:"'),
  row("news", ["id"], "story:11111111-1111-6111-8111-111111111111", 'expected story:<uuid> (lower-case hex, RFC 4122 version 1-5): "story:11111111-1111-6111-8111-111111111111" has "6" at character 21, where the version, 1-5 belongs'),
  row("news", ["title"], "\u0000", 'expected text without control characters: "\\u0000" has U+0000 at character 1'),
  row("news", ["summary"], "a\u0008b", 'expected text without control characters: "a\\bb" has U+0008 at character 2'),
  row("news", ["published_at"], "28/02/2026", 'expected an ISO 8601 UTC date-time such as 2026-03-01T12:00:00Z: "28/02/2026" is not one'),
  row("news", ["sentiment"], "Positive", 'expected lower-case snake_case of 1-32 characters (a-z, 0-9, single underscores, starting with a letter): "Positive" has "P" at character 1; did you mean "positive"?'),
  row("news", ["language"], "english", 'expected a language tag such as en or pt-BR: "english" has a language of 7 letters: 2-3, such as en or fil'),
  row("news", ["language"], "pt-br", 'expected a language tag such as en or pt-BR: "pt-br" has "b" at character 4: the region is 2 upper-case letters'),
  row("news", ["curated"], "yes", 'expected a boolean, not the string "yes"'),
  row("news", ["entities"], Array.from({ length: 51 }, () => ({ type: "project", id: "p1" })), "expected at most 50 items, not 51"),
  row("news", ["entities", 0, "type"], "exchange", 'expected one of: project, token, person, fund, stock, narrative; not "exchange"'),
  row("news", ["entities", 0, "id"], "p 1", 'expected an id of 1-160 characters [A-Za-z0-9_.:-]: "p 1" has " " (a space) at character 2; did you mean "p-1"?'),
  row("news", ["hidden"], "true", 'expected a boolean, not the string "true"'),
  row("news", ["deleted"], null, "expected a boolean, not null"),
  row("news", ["url"], 1, "expected a string, not the number 1"),
  row("news", ["body"], {}, "expected a string, not an object"),

  row("events", ["id"], "evt summit", 'expected an id of 1-160 characters [A-Za-z0-9_.:-]: "evt summit" has " " (a space) at character 4; did you mean "evt-summit"?'),
  row("events", ["slug"], "summit--2026-", 'expected a slug of 1-160 characters [a-z0-9-]: "summit--2026-" may not end with "-"; did you mean "summit-2026"?'),
  row("events", ["name"], long, `expected at most 200 characters, not 201: "${"a".repeat(60)}"…`),
  row("events", ["event_type"], "Conference", 'expected lower-case snake_case of 1-64 characters (a-z, 0-9, single underscores, starting with a letter): "Conference" has "C" at character 1; did you mean "conference"?'),
  row("events", ["start_date"], "10 March 2026", 'expected a date YYYY-MM-DD: "10 March 2026" is not one'),
  row("events", ["end_date"], "2026-04-31", "no such date: 2026-04-31 (April 2026 has 30 days)"),
  row("events", ["city"], "a".repeat(121), `expected at most 120 characters, not 121: "${"a".repeat(60)}"…`),
  row("events", ["country"], "", "expected a non-empty string"),
  row("events", ["website_url"], "javascript:alert(1)", 'expected an http(s) URL: "javascript:alert(1)" has the scheme "javascript:"'),
  row("events", ["dates_validated"], "yes", 'expected a boolean, not the string "yes"'),
  row("events", ["hidden"], 0, "expected a boolean, not the number 0"),
  row("events", ["deleted"], "", 'expected a boolean, not the string ""'),
  row("events", ["description"], [], "expected a string, not an array of 0 items"),
  row("events", ["tags"], "web3", 'expected an array, not the string "web3"'),

  row("x_accounts", ["handle"], "twitter.com/foo", 'expected an X handle of 1-15 characters [A-Za-z0-9_]: "twitter.com/foo" has "." at character 8; did you mean "foo"?'),
  row("x_accounts", ["handle"], "name?lang=en", 'expected an X handle of 1-15 characters [A-Za-z0-9_]: "name?lang=en" has "?" at character 5; did you mean "name"?'),
  row("x_accounts", ["handle"], "a b", 'expected an X handle of 1-15 characters [A-Za-z0-9_]: "a b" has " " (a space) at character 2'),
  row("x_accounts", ["handle"], "@averyveryverylonghandle", 'expected an X handle of 1-15 characters [A-Za-z0-9_]: "@averyveryverylonghandle" has 23 characters, more than 15'),
  row("x_accounts", ["linked_entity"], "p1", 'expected an object, not the string "p1"'),
  row("x_accounts", ["linked_entity", "type"], "token", 'expected one of: project, person; not "token"'),
  row("x_accounts", ["linked_entity", "id"], "p#1", 'expected an id of 1-160 characters [A-Za-z0-9_.:-]: "p#1" has "#" at character 2; did you mean "p-1"?'),
  row("x_accounts", ["hidden"], "false", 'expected a boolean, not the string "false"'),
  row("x_accounts", ["deleted"], 1, "expected a boolean, not the number 1"),
  row("x_accounts", ["profile_url"], null, "expected a string, not null"),
  row("x_accounts", ["display_name"], 1, "expected a string, not the number 1"),
  row("x_accounts", ["bio"], [], "expected a string, not an array of 0 items"),

  row("trending", ["entity"], "p1", 'expected an object, not the string "p1"'),
  row("trending", ["entity", "type"], "fund", 'expected one of: project, token, person, stock, narrative, x_account; not "fund"'),
  row("trending", ["entity", "id"], "p 1", 'expected an id of 1-160 characters [A-Za-z0-9_.:-]: "p 1" has " " (a space) at character 2; did you mean "p-1"?'),
  row("trending", ["entity"], { type: "x_account", handle: "https://x.com/AuroraHQ" }, 'expected an X handle of 1-15 characters [A-Za-z0-9_]: "https://x.com/AuroraHQ" has ":" at character 6; did you mean "AuroraHQ"?', "entity.handle"),
  row("trending", ["day"], "yesterday", 'expected the string "live" or a date YYYY-MM-DD: "yesterday" is not one'),
  row("trending", ["day"], "2026-02-29", "no such date: 2026-02-29 (February 2026 has 28 days)"),
  row("trending", ["observed_at"], 0, "expected a string, not the number 0"),
  row("trending", ["score"], null, "expected a number, not null"),
  row("trending", ["heat"], "hot", 'expected a number, not the string "hot"'),
  row("trending", ["signal_count"], "3", 'expected a number, not the string "3"'),
  row("trending", ["summary"], 1, "expected a string, not the number 1"),
  row("trending", ["clicks"], null, "expected a number, not null"),

  // Search prominence, the same rule in every searchable family.
  row("projects", ["prominence"], 0, "expected a number >= 1, not 0"),
  row("tokens", ["prominence"], 1001, "expected a number <= 1000, not 1001"),
  row("people", ["prominence"], 2.5, "expected an integer, not 2.5"),
  row("funds", ["prominence"], "high", 'expected a number, not the string "high"'),
  row("stocks", ["prominence"], -1, "expected a number >= 1, not -1"),
  row("news", ["prominence"], true, "expected a number, not the boolean true"),
  row("events", ["prominence"], "500", 'expected a number, not the string "500"'),
  row("x_accounts", ["prominence"], 5000, "expected a number <= 1000, not 5000"),

  row("narratives", ["id"], "nar restaking", 'expected an id of 1-160 characters [A-Za-z0-9_.:-]: "nar restaking" has " " (a space) at character 4; did you mean "nar-restaking"?'),
  row("narratives", ["slug"], "Restaking", 'expected a slug of 1-160 characters [a-z0-9-]: "Restaking" has "R" at character 1; did you mean "restaking"?'),
  row("narratives", ["name"], long, `expected at most 200 characters, not 201: "${"a".repeat(60)}"…`),
  row("narratives", ["projects"], "p1", 'expected an array, not the string "p1"'),
  row("narratives", ["projects", 0], "p 1", 'expected an id of 1-160 characters [A-Za-z0-9_.:-]: "p 1" has " " (a space) at character 2; did you mean "p-1"?'),
  row("narratives", ["timeline"], {}, "expected an array, not an object"),
  row("narratives", ["timeline", 0, "date"], "2026-02-30", "no such date: 2026-02-30 (February 2026 has 28 days)"),
  row("narratives", ["timeline", 0, "title"], "a\u0007", 'expected text without control characters: "a\\u0007" has U+0007 at character 2'),
  row("narratives", ["signal"], 5, "expected an object, not the number 5"),
  row("narratives", ["signal", "score"], "high", 'expected a number, not the string "high"'),
  row("narratives", ["signal", "observed_at"], "today", 'expected an ISO 8601 UTC date-time such as 2026-03-01T12:00:00Z: "today" is not one'),
  row("narratives", ["hidden"], "no", 'expected a boolean, not the string "no"'),
  row("narratives", ["deleted"], 1, "expected a boolean, not the number 1"),
  row("narratives", ["prominence"], 0, "expected a number >= 1, not 0"),
  row("narratives", ["description"], 1, "expected a string, not the number 1"),
  row("people", ["roles", 1, "fund_id"], "fund a", 'expected an id of 1-160 characters [A-Za-z0-9_.:-]: "fund a" has " " (a space) at character 5; did you mean "fund-a"?'),
  row("people", ["roles", 1, "project_id"], "p1", "expected project_id or fund_id: one, not both", "roles[1]"),

  // The internal fields, the same in every record and nested object that takes them.
  row("funds", ["sources"], "https://a.example", 'expected an array, not the string "https://a.example"'),
  row("funds", ["sources"], [{ title: "t" }], "required", "sources[0].url"),
  row("funds", ["provider_ids"], { coingecko: 1 }, "expected a string, not the number 1", "provider_ids.coingecko"),
  row("funds", ["evidence"], "e", 'expected an array, not the string "e"'),
  row("funds", ["media"], { logo: "x.png" }, "expected an array, not an object"),
  row("funds", ["curator_notes"], ["n"], "expected a string, not an array of 1 item"),
  row("funds", ["ingested_at"], 1, "expected a string, not the number 1"),
  row("funds", ["bogus"], 1, 'unknown field "bogus"', "(root)"),
];

/** The problems the compiler reports for one record: validation alone, as every compile runs it. */
function problemsOf(family: string, record: Json): string[] {
  return validateBatch({ family, firstLine: 1, lines: [JSON.stringify(record)] }, "x".repeat(32)).problems.map((p) => `${p.path}: ${p.message}`);
}

function broken({ family, set, value }: Row): Json {
  const record = structuredClone(bases[family]!);
  let parent = record as Record<string | number, unknown>;
  for (const key of set.slice(0, -1)) parent = parent[key] as Record<string | number, unknown>;
  if (value === undefined) delete parent[set.at(-1)!];
  else parent[set.at(-1)!] = value;
  return record;
}

const pathText = (path: Path): string => path.map((key, i) => (typeof key === "number" ? `[${key}]` : i === 0 ? key : `.${key}`)).join("");

describe("every field rule names the value", () => {
  it("accepts every base record", () => {
    for (const family of Object.keys(bases)) expect(problemsOf(family, bases[family]!), family).toEqual([]);
  });

  it.each(rows.map((r) => ({ ...r, name: `${r.family} ${r.at ?? pathText(r.set)} ${JSON.stringify(r.value)?.slice(0, 40)}` })))("$name", (r) => {
    expect(problemsOf(r.family, broken(r))).toEqual([`${r.at ?? pathText(r.set)}: ${r.message}`]);
  });

  it("has a row for every field with a rule, of every family", () => {
    const internal = new Set(Object.keys(internalFields));
    const covered = new Set(rows.map((r) => `${r.family} ${(r.at ?? pathText(r.set)).replace(/\[\d+\]/g, "[]")}`));
    const missing: string[] = [];
    for (const { family, schema } of familyJsonSchemas()) {
      const walk = (node: Json, path: string): void => {
        for (const branch of [...((node.anyOf ?? []) as Json[]), ...((node.oneOf ?? []) as Json[])]) walk(branch, path);
        if (node.items !== undefined) walk(node.items as Json, `${path}[]`);
        for (const [name, property] of Object.entries((node.properties ?? {}) as Record<string, Json>)) {
          if (internal.has(name)) continue;
          const field = path === "" ? name : `${path}.${name}`;
          // Any JSON value has no rule to break.
          const ruleless = Object.keys(property).every((key) => key === "description");
          if (!ruleless && !covered.has(`${family} ${field}`)) missing.push(`${family} ${field}`);
          walk(property, field);
        }
      };
      walk(schema, "");
    }
    expect(missing).toEqual([]);
    expect(new Set(rows.map((r) => r.family))).toEqual(new Set(families.map((f) => f.family)));
  });
});
