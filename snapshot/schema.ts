// The compiled snapshot's tables: the one contract between the compiler (writes) and the
// server (reads). Column names equal response field names, so that SQL aliases produce the
// response shape directly. Every table holds public-safe fields only.
//
// Conventions:
// - `position` is the compiler's deterministic order within a list or snapshot (1-based);
//   the server's `rank` is response-local and is recomputed after filtering.
// - date-times are ISO 8601 UTC strings with milliseconds; dates are YYYY-MM-DD.
// - booleans are INTEGER 0/1; arrays of strings are JSON text.
// - *_count columns hold the total number of eligible items, which may exceed the at most
//   20 rows kept per list.
import { SEARCH_TRIGRAM_INDEXES } from "./search-keys.ts";

/** Bumped whenever a table or column changes meaning; the server refuses other versions. */
export const SNAPSHOT_FORMAT_VERSION = 8;

export const snapshotTables = `
CREATE TABLE manifest (
  key TEXT PRIMARY KEY,
  value TEXT NOT NULL              -- JSON
) WITHOUT ROWID;

-- One row per precomputed snapshot; as_of is an ISO date-time (a date for none of them).
CREATE TABLE snapshots (
  name TEXT PRIMARY KEY,           -- trending_projects | fund_rankings | stock_rankings | market | trending_live | narrative_rankings
  as_of TEXT                       -- NULL when the snapshot has no as_of (stock_rankings)
) WITHOUT ROWID;

CREATE TABLE projects (
  id TEXT PRIMARY KEY,
  slug TEXT NOT NULL UNIQUE,
  name TEXT NOT NULL,
  feature_count INTEGER NOT NULL,
  event_count INTEGER NOT NULL,
  round_count INTEGER NOT NULL
) WITHOUT ROWID;

CREATE TABLE project_features (
  project_id TEXT NOT NULL,
  position INTEGER NOT NULL,
  feature_id TEXT NOT NULL,
  feature_name TEXT NOT NULL,
  display_name TEXT NOT NULL,
  category TEXT NOT NULL,
  status TEXT NOT NULL,
  primary_url TEXT,
  docs_url TEXT,
  app_url TEXT,
  chain_ids TEXT NOT NULL,         -- JSON array of strings
  last_verified_at TEXT NOT NULL,
  PRIMARY KEY (project_id, position)
) WITHOUT ROWID;

CREATE TABLE project_events (
  project_id TEXT NOT NULL,
  position INTEGER NOT NULL,
  id TEXT NOT NULL,
  type TEXT NOT NULL,
  occurred_at TEXT NOT NULL,
  PRIMARY KEY (project_id, position)
) WITHOUT ROWID;

CREATE TABLE funding_rounds (
  project_id TEXT NOT NULL,
  position INTEGER NOT NULL,
  round_type TEXT NOT NULL,
  amount_usd REAL NOT NULL,
  announced_at TEXT NOT NULL,
  PRIMARY KEY (project_id, position)
) WITHOUT ROWID;

-- The latest daily TVL observation of a project whose mapping is consistent.
CREATE TABLE project_tvl (
  project_id TEXT PRIMARY KEY,
  as_of TEXT NOT NULL,             -- date
  tvl_usd REAL NOT NULL
) WITHOUT ROWID;

CREATE TABLE trending_projects (
  position INTEGER PRIMARY KEY,    -- 1..30
  project_id TEXT NOT NULL,
  hot_tier TEXT NOT NULL
);

CREATE TABLE tokens (
  id TEXT PRIMARY KEY,
  slug TEXT NOT NULL,
  symbol TEXT NOT NULL,
  name TEXT NOT NULL,
  project_id TEXT                  -- the issuing project when it is served, else NULL
) WITHOUT ROWID;

-- Where each token lives: at most 20 per token (decision 33), ordered by chain: namespace, then
-- the reference as a number when it is one (eip155:56 before eip155:137), then the chain id.
CREATE TABLE token_contracts (
  token_id TEXT NOT NULL,
  position INTEGER NOT NULL,
  chain_id TEXT NOT NULL,          -- CAIP-2, e.g. eip155:1
  address TEXT NOT NULL,           -- as curated
  PRIMARY KEY (token_id, position)
) WITHOUT ROWID;

-- Present only when at least one tokenomics field passed the freshness and confidence rules.
CREATE TABLE tokenomics (
  token_id TEXT PRIMARY KEY,
  as_of TEXT NOT NULL,             -- oldest verified_at among the fields kept
  model_type TEXT                  -- NULL when that field was not kept
) WITHOUT ROWID;

CREATE TABLE tokenomics_allocations (
  token_id TEXT NOT NULL,
  position INTEGER NOT NULL,
  bucket TEXT NOT NULL,
  percent_supply REAL NOT NULL,
  amount_native REAL NOT NULL,
  PRIMARY KEY (token_id, position)
) WITHOUT ROWID;

CREATE TABLE tokenomics_vesting (
  token_id TEXT NOT NULL,
  position INTEGER NOT NULL,
  allocation_bucket TEXT NOT NULL,
  start_at TEXT NOT NULL,
  cliff_at TEXT,
  end_at TEXT NOT NULL,
  cadence TEXT NOT NULL,
  percent_unlocked_at_tge REAL NOT NULL,
  amount_native REAL NOT NULL,
  PRIMARY KEY (token_id, position)
) WITHOUT ROWID;

-- Each served vesting schedule's unlock plan (snapshot/unlocks.ts): what the schedule fixes, so
-- that a request only places its window. Times are integer ms since the epoch.
CREATE TABLE token_unlock_plans (
  token_id TEXT NOT NULL,
  position INTEGER NOT NULL,       -- the schedule's position in tokenomics_vesting
  allocation_bucket TEXT NOT NULL,
  cadence TEXT NOT NULL,
  start_ms INTEGER NOT NULL,
  end_ms INTEGER NOT NULL,
  tge_amount REAL NOT NULL,
  cliff_ms INTEGER,                -- NULL: no cliff unlock
  cliff_amount REAL NOT NULL,
  first_step INTEGER NOT NULL,     -- the first step unlocked on its own (after the cliff)
  step_count INTEGER NOT NULL,
  step_amount REAL NOT NULL,
  PRIMARY KEY (token_id, position)
) WITHOUT ROWID;

CREATE TABLE tokenomics_utilities (
  token_id TEXT NOT NULL,
  position INTEGER NOT NULL,
  utility_type TEXT NOT NULL,
  PRIMARY KEY (token_id, position)
) WITHOUT ROWID;

-- The represented top-200 universe: eligible assets only, position by market cap.
CREATE TABLE market_assets (
  position INTEGER PRIMARY KEY,
  token_id TEXT NOT NULL,
  price_usd REAL NOT NULL,
  market_cap_usd REAL NOT NULL,
  volume_24h_usd REAL NOT NULL,
  change_24h_pct REAL NOT NULL,
  change_7d_pct REAL NOT NULL
);
-- Top movers join their 20 rows to the universe by token.
CREATE INDEX market_assets_by_token ON market_assets (token_id);

-- At most 20 gainers and 20 losers per period, drawn from market_assets.
CREATE TABLE market_movers (
  period TEXT NOT NULL,            -- 24h | 7d
  direction TEXT NOT NULL,         -- gainer | loser
  position INTEGER NOT NULL,
  token_id TEXT NOT NULL,
  change_pct REAL NOT NULL,
  PRIMARY KEY (period, direction, position)
) WITHOUT ROWID;

-- Exactly one row when the universe is non-empty.
CREATE TABLE market_snapshot (
  as_of TEXT NOT NULL,             -- oldest observed_at in the universe
  represented_asset_count INTEGER NOT NULL,
  represented_market_cap_usd REAL NOT NULL,
  represented_volume_24h_usd REAL NOT NULL,
  btc_price_usd REAL NOT NULL,
  btc_change_24h_pct REAL NOT NULL,
  btc_share_of_represented_market_cap_pct REAL NOT NULL,
  eth_price_usd REAL NOT NULL,
  eth_change_24h_pct REAL NOT NULL,
  eth_share_of_represented_market_cap_pct REAL NOT NULL
);

CREATE TABLE people (
  id TEXT PRIMARY KEY,
  slug TEXT NOT NULL UNIQUE,
  full_name TEXT NOT NULL,
  investment_count INTEGER NOT NULL,
  role_count INTEGER NOT NULL,
  -- The bounded candidate set of people search: people with an eligible investment or role (at a
  -- project or a fund), or named by an eligible X account's link.
  is_search_candidate INTEGER NOT NULL
) WITHOUT ROWID;

CREATE TABLE person_investments (
  person_id TEXT NOT NULL,
  position INTEGER NOT NULL,
  project_id TEXT NOT NULL,
  PRIMARY KEY (person_id, position)
) WITHOUT ROWID;

CREATE TABLE person_roles (
  person_id TEXT NOT NULL,
  position INTEGER NOT NULL,
  project_id TEXT NOT NULL,
  is_current INTEGER NOT NULL,
  PRIMARY KEY (person_id, position)
) WITHOUT ROWID;

CREATE TABLE funds (
  id TEXT PRIMARY KEY,
  slug TEXT NOT NULL UNIQUE,
  name TEXT NOT NULL,
  fund_type TEXT NOT NULL,
  portfolio_count INTEGER NOT NULL,
  partner_count INTEGER NOT NULL
) WITHOUT ROWID;

-- Projects of verified rounds the fund invested in, one per project (its latest round), latest first.
CREATE TABLE fund_portfolio (
  fund_id TEXT NOT NULL,
  position INTEGER NOT NULL,
  project_id TEXT NOT NULL,
  PRIMARY KEY (fund_id, position)
) WITHOUT ROWID;

-- People with a current role at the fund.
CREATE TABLE fund_partners (
  fund_id TEXT NOT NULL,
  position INTEGER NOT NULL,
  person_id TEXT NOT NULL,
  PRIMARY KEY (fund_id, position)
) WITHOUT ROWID;

CREATE TABLE fund_rankings (
  position INTEGER PRIMARY KEY,    -- 1..30, by score
  fund_id TEXT NOT NULL
);

CREATE TABLE stocks (
  id TEXT PRIMARY KEY,
  slug TEXT NOT NULL UNIQUE,
  name TEXT NOT NULL,
  ticker TEXT NOT NULL,
  exchange TEXT NOT NULL,
  region TEXT NOT NULL,
  crypto_angle TEXT NOT NULL,
  ipo_date TEXT NOT NULL,
  is_pre_ipo INTEGER NOT NULL,
  story_count INTEGER NOT NULL
) WITHOUT ROWID;

-- Curated stories naming the stock, newest first.
CREATE TABLE stock_news (
  stock_id TEXT NOT NULL,
  position INTEGER NOT NULL,
  news_id TEXT NOT NULL,
  PRIMARY KEY (stock_id, position)
) WITHOUT ROWID;

CREATE TABLE stock_rankings (
  position INTEGER PRIMARY KEY,    -- 1..30, most recent IPO first
  stock_id TEXT NOT NULL
);

CREATE TABLE narratives (
  id TEXT PRIMARY KEY,
  slug TEXT NOT NULL UNIQUE,
  name TEXT NOT NULL,
  project_count INTEGER NOT NULL
) WITHOUT ROWID;

-- Member projects in the curators' order.
CREATE TABLE narrative_projects (
  narrative_id TEXT NOT NULL,
  position INTEGER NOT NULL,
  project_id TEXT NOT NULL,
  PRIMARY KEY (narrative_id, position)
) WITHOUT ROWID;

-- The 20 latest dated entries, oldest first.
CREATE TABLE narrative_timeline (
  narrative_id TEXT NOT NULL,
  position INTEGER NOT NULL,
  date TEXT NOT NULL,
  title TEXT NOT NULL,
  PRIMARY KEY (narrative_id, position)
) WITHOUT ROWID;

-- At most 30 narratives with a fresh signal, by score.
CREATE TABLE narrative_rankings (
  position INTEGER PRIMARY KEY,
  narrative_id TEXT NOT NULL
);

CREATE TABLE news (
  id TEXT PRIMARY KEY,
  title TEXT NOT NULL,
  summary TEXT NOT NULL,
  published_at TEXT NOT NULL,
  sentiment TEXT NOT NULL,
  language TEXT NOT NULL
) WITHOUT ROWID;

CREATE TABLE news_entities (
  news_id TEXT NOT NULL,
  position INTEGER NOT NULL,
  type TEXT NOT NULL,
  id TEXT NOT NULL,
  slug TEXT NOT NULL,
  name TEXT NOT NULL,
  PRIMARY KEY (news_id, position)
) WITHOUT ROWID;

CREATE TABLE events (
  id TEXT PRIMARY KEY,
  slug TEXT NOT NULL UNIQUE,
  name TEXT NOT NULL,
  event_type TEXT NOT NULL,
  start_date TEXT NOT NULL,
  end_date TEXT NOT NULL,
  city TEXT NOT NULL,
  country TEXT NOT NULL,
  website_url TEXT
) WITHOUT ROWID;

CREATE TABLE x_accounts (
  id TEXT PRIMARY KEY,             -- opaque: keyed hash of the normalised handle
  linked_type TEXT,                -- project | person | NULL
  linked_id TEXT
) WITHOUT ROWID;

-- Exact handle search: hex(HMAC(searchKey, normalised handle)) to id. The search key is derived
-- from the compile secret and held by the server (cei serve --x-secret-file), never stored here.
CREATE TABLE x_handle_index (
  handle_hash TEXT PRIMARY KEY,
  x_account_id TEXT NOT NULL
) WITHOUT ROWID;

-- day is 'live' or a UTC date; each of the previous 30 UTC days has a row even when empty.
CREATE TABLE trending_days (
  day TEXT PRIMARY KEY,
  as_of TEXT NOT NULL
) WITHOUT ROWID;

CREATE TABLE trending_entities (
  day TEXT NOT NULL,
  position INTEGER NOT NULL,       -- 1..20
  entity_type TEXT NOT NULL,       -- project | token | person | x_account | stock | narrative
  entity_id TEXT NOT NULL,
  PRIMARY KEY (day, position)
) WITHOUT ROWID;

-- Search (decision 29). Every searchable entity has one place in a global order, \`ord\`: prominence
-- (higher first; none last), then the shorter name, then id, then family. A search returns each
-- match class in that order, read from indexes kept in it, so that a request sorts nothing.
-- name and slug are folded (snapshot/fold.ts); slug is NULL when it folds to the name.
CREATE TABLE search_entities (
  ord INTEGER PRIMARY KEY,
  entity_type TEXT NOT NULL,       -- one of SEARCH_KEY_FAMILIES
  entity_id TEXT NOT NULL,
  name TEXT,
  slug TEXT,
  prominence INTEGER               -- the compiled prominence (1-1000), NULL when no signal
);
-- Exact keys (class 1): the folded name, slug, id, symbol, ticker and every other exact-only key
-- of the layout (a raw key is stored with a leading U+0001 and compared byte for byte). A key's
-- matches in every family are one range, in ord order; a search keeps the families it names.
CREATE TABLE search_exact (
  key TEXT NOT NULL,
  ord INTEGER NOT NULL,
  entity_type TEXT NOT NULL,
  entity_id TEXT NOT NULL,
  PRIMARY KEY (key, ord)
) WITHOUT ROWID;
-- Contentless FTS5 trigram indexes, rowid = ord (SEARCH_TRIGRAM_INDEXES): one per family with a
-- name or slug, and search_fts_default over those of the six default families together. Each holds
-- ' ' || name || char(10) || ' ' || slug: a space before every word, so that a word's first two
-- characters with the space before them are a trigram only at the start of a word. Word-prefix,
-- prefix and substring matches (classes 2-4) are the rows holding the query's trigrams, in ord
-- order, checked against search_entities. No %_docsize table (columnsize=0): only ranking
-- functions read it.
${SEARCH_TRIGRAM_INDEXES.map(({ name }) => `CREATE VIRTUAL TABLE search_fts_${name} USING fts5 (words, content='', detail='none', columnsize=0, tokenize='trigram');`).join("\n")}
-- How many of each index's entities hold each trigram: a search reads the doclists of its rarest.
-- The empty trigram, held by every entity, gives the index's size.
CREATE TABLE search_trigrams (
  trigram TEXT NOT NULL,
  search_index TEXT NOT NULL,      -- a name of SEARCH_TRIGRAM_INDEXES
  documents INTEGER NOT NULL,
  PRIMARY KEY (trigram, search_index)
) WITHOUT ROWID;
`;
