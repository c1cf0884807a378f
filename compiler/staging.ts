// Step 2: the typed staging tables. Each valid record is flattened in JS (by `stagingRows`, on
// the thread staging its family) into one row per record and per nested list item, so
// that checks, eligibility and output are plain SQL over indexed columns.
//
// Values keep SQLite's JSON semantics: booleans are 0/1, absent or null values are NULL, and
// date-times are normalised to milliseconds by SQLite's own strftime at insert time.

type ColumnType = "TEXT" | "INTEGER" | "NUMERIC" | "DATETIME";

/** Table → columns, in the order `stagingRows` emits values. DATETIME is TEXT normalised on insert. */
const tables = {
  s_projects: { line: "INTEGER", id: "TEXT", slug: "TEXT", name: "TEXT", hidden: "INTEGER", deleted: "INTEGER" },
  s_features: {
    project_line: "INTEGER", idx: "INTEGER", feature_id: "TEXT", feature_name: "TEXT", display_name: "TEXT",
    category: "TEXT", status: "TEXT", primary_url: "TEXT", docs_url: "TEXT", app_url: "TEXT", chain_ids: "TEXT",
    last_verified_at: "DATETIME", review_state: "TEXT",
  },
  s_pevents: { project_line: "INTEGER", idx: "INTEGER", id: "TEXT", type: "TEXT", occurred_at: "DATETIME", verified: "INTEGER" },
  s_rounds: {
    project_line: "INTEGER", idx: "INTEGER", id: "TEXT", round_type: "TEXT", amount_usd: "NUMERIC",
    announced_at: "DATETIME", verified: "INTEGER",
  },
  s_round_investors: { project_line: "INTEGER", round_idx: "INTEGER", idx: "INTEGER", type: "TEXT", id: "TEXT" },
  s_tvl: {
    project_line: "INTEGER", state: "TEXT", series_id: "TEXT", obs_date: "TEXT", obs_tvl: "NUMERIC", obs_series: "TEXT",
  },
  s_trend_observations: { project_line: "INTEGER", idx: "INTEGER", observed_at: "DATETIME", hot_tier: "TEXT", score: "NUMERIC" },
  s_tokens: {
    line: "INTEGER", id: "TEXT", slug: "TEXT", symbol: "TEXT", name: "TEXT", project_id: "TEXT", benchmark: "TEXT",
    hidden: "INTEGER", deleted: "INTEGER", observed_at: "DATETIME", rank: "NUMERIC", price_usd: "NUMERIC",
    market_cap_usd: "NUMERIC", volume_24h_usd: "NUMERIC", change_24h_pct: "NUMERIC", change_7d_pct: "NUMERIC",
    market_eligible: "INTEGER",
  },
  s_tokenomics_fields: { token_line: "INTEGER", field: "TEXT", verified_at: "DATETIME", confidence: "NUMERIC", model_type: "TEXT" },
  s_allocations: { token_line: "INTEGER", idx: "INTEGER", bucket: "TEXT", percent_supply: "NUMERIC", amount_native: "NUMERIC" },
  s_vesting: {
    token_line: "INTEGER", idx: "INTEGER", allocation_bucket: "TEXT", start_at: "DATETIME", cliff_at: "DATETIME",
    end_at: "DATETIME", cadence: "TEXT", percent_unlocked_at_tge: "NUMERIC", amount_native: "NUMERIC",
  },
  s_utilities: { token_line: "INTEGER", idx: "INTEGER", utility_type: "TEXT" },
  s_people: { line: "INTEGER", id: "TEXT", slug: "TEXT", full_name: "TEXT", hidden: "INTEGER", deleted: "INTEGER" },
  s_investments: {
    person_line: "INTEGER", idx: "INTEGER", project_id: "TEXT", round_id: "TEXT", invested_at: "DATETIME", verified: "INTEGER",
  },
  s_roles: { person_line: "INTEGER", idx: "INTEGER", project_id: "TEXT", is_current: "INTEGER", started_at: "TEXT" },
  s_funds: {
    line: "INTEGER", id: "TEXT", slug: "TEXT", name: "TEXT", fund_type: "TEXT", score: "NUMERIC",
    score_updated_at: "DATETIME", hidden: "INTEGER", deleted: "INTEGER",
  },
  s_stocks: {
    line: "INTEGER", id: "TEXT", slug: "TEXT", name: "TEXT", ticker: "TEXT", exchange: "TEXT", region: "TEXT",
    crypto_angle: "TEXT", ipo_date: "TEXT", is_pre_ipo: "INTEGER", hidden: "INTEGER", deleted: "INTEGER",
  },
  s_news: {
    line: "INTEGER", id: "TEXT", title: "TEXT", summary: "TEXT", published_at: "DATETIME", sentiment: "TEXT",
    language: "TEXT", curated: "INTEGER", hidden: "INTEGER", deleted: "INTEGER",
  },
  s_news_entities: { news_line: "INTEGER", idx: "INTEGER", type: "TEXT", id: "TEXT" },
  s_events: {
    line: "INTEGER", id: "TEXT", slug: "TEXT", name: "TEXT", event_type: "TEXT", start_date: "TEXT", end_date: "TEXT",
    city: "TEXT", country: "TEXT", website_url: "TEXT", dates_validated: "INTEGER", hidden: "INTEGER", deleted: "INTEGER",
  },
  s_x: {
    line: "INTEGER", xid: "TEXT", handle_hash: "TEXT", linked_type: "TEXT", linked_id: "TEXT", hidden: "INTEGER", deleted: "INTEGER",
  },
  s_trending: { line: "INTEGER", entity_type: "TEXT", entity_id: "TEXT", day: "TEXT", observed_at: "DATETIME", score: "NUMERIC" },
  // Records of the referenced families that failed validation, by the id they carry: they still
  // exist for the reference checks, so that one mistake is reported once, not at every reference.
  s_projects_invalid: { line: "INTEGER", id: "TEXT" },
  s_tokens_invalid: { line: "INTEGER", id: "TEXT" },
  s_people_invalid: { line: "INTEGER", id: "TEXT" },
  s_funds_invalid: { line: "INTEGER", id: "TEXT" },
  s_x_invalid: { line: "INTEGER", id: "TEXT" },
} as const satisfies Record<string, Record<string, ColumnType>>;

export type StagingTable = keyof typeof tables;

/** The staging tables each family's records are flattened into. */
const familyTables: Record<string, StagingTable[]> = {
  projects: ["s_projects", "s_features", "s_pevents", "s_rounds", "s_round_investors", "s_tvl", "s_trend_observations", "s_projects_invalid"],
  tokens: ["s_tokens", "s_tokenomics_fields", "s_allocations", "s_vesting", "s_utilities", "s_tokens_invalid"],
  people: ["s_people", "s_investments", "s_roles", "s_people_invalid"],
  funds: ["s_funds", "s_funds_invalid"],
  stocks: ["s_stocks"],
  news: ["s_news", "s_news_entities"],
  events: ["s_events"],
  x_accounts: ["s_x", "s_x_invalid"],
  trending: ["s_trending"],
};

/** The table of a referenced family's invalid records (tokens.jsonl's records are referenced by news and trending). */
export const invalidTables: Partial<Record<string, StagingTable>> = {
  projects: "s_projects_invalid",
  tokens: "s_tokens_invalid",
  people: "s_people_invalid",
  funds: "s_funds_invalid",
  x_accounts: "s_x_invalid",
};

/** ISO 8601 UTC with milliseconds, e.g. 2026-03-01T12:00:00.000Z. */
const isoMs = (expr: string): string => `strftime('%Y-%m-%dT%H:%M:%fZ', ${expr})`;

const columnsOf = (table: StagingTable): Array<[string, ColumnType]> => Object.entries(tables[table]) as Array<[string, ColumnType]>;

/**
 * The problems tables: every staging database has them (validation problems; the main one also
 * gets the checks'). `problem_overflow` counts, by kind, the problems found but not kept
 * (problem-report.ts): a lane keeps only the first few of each kind.
 */
export const problemsDdl =
  "CREATE TABLE problems (seq INTEGER PRIMARY KEY, file TEXT NOT NULL, line INTEGER NOT NULL, path TEXT NOT NULL, message TEXT NOT NULL);\n" +
  "CREATE TABLE problem_overflow (kind TEXT NOT NULL, count INTEGER NOT NULL);";

/** The staging tables of one family. */
export function stagingDdl(family: string): string {
  return familyTables[family]!
    .map((t) => `CREATE TABLE ${t} (${columnsOf(t).map(([name, type]) => `${name} ${type === "DATETIME" ? "TEXT" : type}`).join(", ")});`)
    .join("\n");
}

/** How many values one row of `table` has. */
export const stagingWidth = (table: StagingTable): number => columnsOf(table).length;

/** `INSERT` of `rows` rows at once into `table`; date-time columns go through strftime. */
export function stagingInsertSql(table: StagingTable, rows: number): string {
  const one = `(${columnsOf(table).map(([, type]) => (type === "DATETIME" ? isoMs("?") : "?")).join(", ")})`;
  return `INSERT INTO ${table} VALUES ${Array.from({ length: rows }, () => one).join(", ")}`;
}

/** Rows of one batch, per table: each table's rows concatenated, `stagingWidth(table)` values each. */
export type StagingRows = Partial<Record<StagingTable, unknown[]>>;

type Json = Record<string, unknown>;
const bit = (value: unknown): number => (value === true ? 1 : 0);
const list = (value: unknown): Json[] => (Array.isArray(value) ? (value as Json[]) : []);
const nullable = (value: unknown): unknown => value ?? null;

/**
 * Appends the staging rows of one valid record (zod's output, defaults applied) to `out`.
 * `xid` and `handleHash` are the keyed X ids computed for x_accounts and trending records.
 */
export function stagingRows(family: string, r: Json, line: number, xid: string | null, handleHash: string | null, out: StagingRows): void {
  // Each call site pushes a whole row at once (no rest parameters: this runs a few million times).
  const to = (table: StagingTable): unknown[] => (out[table] ??= []);
  switch (family) {
    case "projects": {
      to("s_projects").push(line, r.id, r.slug, r.name, bit(r.hidden), bit(r.deleted));
      list(r.features).forEach((f, i) =>
        to("s_features").push(line, i, f.feature_id, f.feature_name, f.display_name, f.category, f.status,
          nullable(f.primary_url), nullable(f.docs_url), nullable(f.app_url), JSON.stringify(f.chain_ids ?? []),
          f.last_verified_at, f.review_state));
      list(r.events).forEach((e, i) => to("s_pevents").push(line, i, e.id, e.type, e.occurred_at, bit(e.verified)));
      list(r.funding).forEach((f, i) => {
        to("s_rounds").push(line, i, f.id, f.round_type, f.amount_usd, f.announced_at, bit(f.verified));
        list(f.investors).forEach((v, j) => to("s_round_investors").push(line, i, j, v.type, v.id));
      });
      const tvl = r.tvl as { mapping: Json; observations: Json[] } | null;
      if (tvl !== null) {
        // The latest observation by date; of equal dates, the last listed.
        let latest: Json | undefined;
        for (const o of tvl.observations) if (latest === undefined || (o.date as string) >= (latest.date as string)) latest = o;
        to("s_tvl").push(line, tvl.mapping.state, tvl.mapping.series_id, nullable(latest?.date), nullable(latest?.tvl_usd), nullable(latest?.series_id));
      }
      list(r.trend).forEach((t, i) => to("s_trend_observations").push(line, i, t.observed_at, t.hot_tier, t.score));
      return;
    }
    case "tokens": {
      const m = r.market as Json | null;
      to("s_tokens").push(line, r.id, r.slug, r.symbol, r.name, nullable(r.project_id), nullable(r.benchmark), bit(r.hidden), bit(r.deleted),
        nullable(m?.observed_at), nullable(m?.rank), nullable(m?.price_usd), nullable(m?.market_cap_usd), nullable(m?.volume_24h_usd),
        nullable(m?.change_24h_pct), nullable(m?.change_7d_pct), m === null ? 1 : bit(m.market_eligible));
      const t = r.tokenomics as Record<string, Json | undefined> | null;
      if (t === null) return;
      for (const field of ["model_type", "allocations", "vesting_schedules", "utilities"] as const) {
        const f = t[field];
        if (f !== undefined) to("s_tokenomics_fields").push(line, field, f.verified_at, f.confidence, field === "model_type" ? f.value : null);
      }
      list(t.allocations?.value).forEach((a, i) => to("s_allocations").push(line, i, a.bucket, a.percent_supply, a.amount_native));
      list(t.vesting_schedules?.value).forEach((v, i) =>
        to("s_vesting").push(line, i, v.allocation_bucket, v.start_at, nullable(v.cliff_at), v.end_at, v.cadence,
          v.percent_unlocked_at_tge, v.amount_native));
      list(t.utilities?.value).forEach((u, i) => to("s_utilities").push(line, i, u.utility_type));
      return;
    }
    case "people":
      to("s_people").push(line, r.id, r.slug, r.full_name, bit(r.hidden), bit(r.deleted));
      list(r.investments).forEach((v, i) => to("s_investments").push(line, i, v.project_id, nullable(v.round_id), v.invested_at, bit(v.verified)));
      list(r.roles).forEach((v, i) => to("s_roles").push(line, i, v.project_id, bit(v.is_current), nullable(v.started_at)));
      return;
    case "funds":
      to("s_funds").push(line, r.id, r.slug, r.name, r.fund_type, r.score, r.score_updated_at, bit(r.hidden), bit(r.deleted));
      return;
    case "stocks":
      to("s_stocks").push(line, r.id, r.slug, r.name, r.ticker, r.exchange, r.region, r.crypto_angle, r.ipo_date, bit(r.is_pre_ipo),
        bit(r.hidden), bit(r.deleted));
      return;
    case "news":
      to("s_news").push(line, r.id, r.title, r.summary, r.published_at, r.sentiment, r.language, bit(r.curated), bit(r.hidden), bit(r.deleted));
      list(r.entities).forEach((e, i) => to("s_news_entities").push(line, i, e.type, e.id));
      return;
    case "events":
      to("s_events").push(line, r.id, r.slug, r.name, r.event_type, r.start_date, r.end_date, r.city, r.country, nullable(r.website_url),
        bit(r.dates_validated), bit(r.hidden), bit(r.deleted));
      return;
    case "x_accounts": {
      const linked = r.linked_entity as Json | null;
      to("s_x").push(line, xid, handleHash, nullable(linked?.type), nullable(linked?.id), bit(r.hidden), bit(r.deleted));
      return;
    }
    case "trending": {
      const entity = r.entity as Json;
      to("s_trending").push(line, entity.type, xid ?? entity.id, r.day, r.observed_at, r.score);
      return;
    }
    default:
      throw new Error(`unknown family ${family}`);
  }
}

/**
 * Run once a family's rows are all in: the indexes of every later join, and for projects each
 * project's latest trend observation.
 */
export const stagingIndexSql: Record<string, string> = {
  projects: [
    `CREATE TABLE s_trend AS
      SELECT project_line, observed_at, hot_tier, score FROM (
        SELECT project_line, observed_at, hot_tier, score,
          row_number() OVER (PARTITION BY project_line ORDER BY observed_at DESC, score DESC, idx) AS rn
        FROM s_trend_observations) WHERE rn = 1;`,
    "CREATE INDEX s_projects_id ON s_projects (id);",
    "CREATE INDEX s_projects_slug ON s_projects (slug);",
    "CREATE INDEX s_projects_line ON s_projects (line);",
    "CREATE INDEX s_projects_invalid_id ON s_projects_invalid (id);",
    "CREATE INDEX s_features_parent ON s_features (project_line);",
    "CREATE INDEX s_pevents_parent ON s_pevents (project_line);",
    "CREATE INDEX s_rounds_parent ON s_rounds (project_line, id);",
    "CREATE INDEX s_tvl_parent ON s_tvl (project_line);",
    "CREATE INDEX s_trend_parent ON s_trend (project_line);",
  ].join("\n"),
  tokens: [
    "CREATE INDEX s_tokens_id ON s_tokens (id);",
    "CREATE INDEX s_tokens_invalid_id ON s_tokens_invalid (id);",
    "CREATE INDEX s_tokenomics_parent ON s_tokenomics_fields (token_line);",
    "CREATE INDEX s_allocations_parent ON s_allocations (token_line);",
    "CREATE INDEX s_vesting_parent ON s_vesting (token_line);",
    "CREATE INDEX s_utilities_parent ON s_utilities (token_line);",
  ].join("\n"),
  people: [
    "CREATE INDEX s_people_id ON s_people (id);",
    "CREATE INDEX s_people_invalid_id ON s_people_invalid (id);",
    "CREATE INDEX s_people_slug ON s_people (slug);",
    "CREATE INDEX s_investments_parent ON s_investments (person_line);",
    "CREATE INDEX s_roles_parent ON s_roles (person_line);",
  ].join("\n"),
  funds: [
    "CREATE INDEX s_funds_id ON s_funds (id);",
    "CREATE INDEX s_funds_invalid_id ON s_funds_invalid (id);",
    "CREATE INDEX s_funds_slug ON s_funds (slug);",
  ].join("\n"),
  stocks: [
    "CREATE INDEX s_stocks_id ON s_stocks (id);",
    "CREATE INDEX s_stocks_slug ON s_stocks (slug);",
  ].join("\n"),
  news: [
    "CREATE INDEX s_news_id ON s_news (id);",
    "CREATE INDEX s_news_entities_parent ON s_news_entities (news_line);",
  ].join("\n"),
  events: [
    "CREATE INDEX s_events_id ON s_events (id);",
    "CREATE INDEX s_events_slug ON s_events (slug);",
  ].join("\n"),
  x_accounts: [
    "CREATE INDEX s_x_id ON s_x (xid);",
    "CREATE INDEX s_x_invalid_id ON s_x_invalid (id);",
  ].join("\n"),
  trending: [
    "CREATE INDEX s_trending_day ON s_trending (day, entity_type, entity_id);",
  ].join("\n"),
};
