// The compile benchmark's floor: the same files read and parsed, and their rows inserted into
// the same tables, by a minimal loop in one transaction — no validation, eligibility, ordering,
// snapshots or search index. Compile time is reported as a ratio to this.
import { createReadStream, rmSync } from "node:fs";
import { join } from "node:path";
import { createInterface } from "node:readline";
import Database from "better-sqlite3";
import { families } from "../compiler/families/index.ts";
import { snapshotTables } from "../snapshot/schema.ts";

type Row = Record<string, unknown>;
type Insert = (record: Row, line: number) => void;

export async function compileFloor(sourceDir: string, outFile: string): Promise<{ lines: number }> {
  rmSync(outFile, { force: true });
  const db = new Database(outFile);
  db.pragma("journal_mode = OFF");
  db.pragma("synchronous = OFF");
  db.exec(snapshotTables);
  const insert = inserters(db);
  let lines = 0;
  db.exec("BEGIN");
  for (const { family, file } of families) {
    const reader = createInterface({ input: createReadStream(join(sourceDir, file)), crlfDelay: Infinity });
    for await (const text of reader) {
      if (text.length === 0) continue;
      lines += 1;
      insert[family]!(JSON.parse(text) as Row, lines);
    }
  }
  db.exec("COMMIT");
  db.close();
  return { lines };
}

function inserters(db: Database.Database): Record<string, Insert> {
  const s = (sql: string) => db.prepare(sql);
  const project = s("INSERT INTO projects VALUES (?, ?, ?, ?, ?, ?)");
  const feature = s("INSERT INTO project_features VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)");
  const projectEvent = s("INSERT INTO project_events VALUES (?, ?, ?, ?, ?)");
  const round = s("INSERT INTO funding_rounds VALUES (?, ?, ?, ?, ?)");
  const tvl = s("INSERT INTO project_tvl VALUES (?, ?, ?)");
  const token = s("INSERT INTO tokens VALUES (?, ?, ?, ?, ?)");
  const contract = s("INSERT INTO token_contracts VALUES (?, ?, ?, ?)");
  const market = s("INSERT INTO market_assets VALUES (?, ?, ?, ?, ?, ?, ?)");
  const tokenomics = s("INSERT INTO tokenomics VALUES (?, ?, ?)");
  const allocation = s("INSERT INTO tokenomics_allocations VALUES (?, ?, ?, ?, ?)");
  const person = s("INSERT INTO people VALUES (?, ?, ?, ?, ?, 1)");
  const investment = s("INSERT INTO person_investments VALUES (?, ?, ?)");
  const role = s("INSERT INTO person_roles VALUES (?, ?, ?, ?)");
  const fund = s("INSERT INTO funds VALUES (?, ?, ?, ?, 0, 0)");
  const stock = s("INSERT INTO stocks VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, 0)");
  const narrative = s("INSERT INTO narratives VALUES (?, ?, ?, ?)");
  const narrativeProject = s("INSERT INTO narrative_projects VALUES (?, ?, ?)");
  const narrativeEntry = s("INSERT INTO narrative_timeline VALUES (?, ?, ?, ?)");
  const news = s("INSERT INTO news VALUES (?, ?, ?, ?, ?, ?)");
  const newsEntity = s("INSERT INTO news_entities VALUES (?, ?, ?, ?, '', '')");
  const event = s("INSERT INTO events VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)");
  const xAccount = s("INSERT INTO x_accounts VALUES (?, ?, ?)");
  const trending = s("INSERT INTO trending_entities VALUES (?, ?, ?, ?)");
  const list = (value: unknown) => (Array.isArray(value) ? (value as Row[]) : []);
  let marketPosition = 0;

  return {
    projects(r) {
      const features = list(r.features), events = list(r.events), funding = list(r.funding);
      project.run(r.id, r.slug, r.name, features.length, events.length, funding.length);
      features.forEach((f, i) => feature.run(r.id, i + 1, f.feature_id, f.feature_name, f.display_name, f.category, f.status,
        f.primary_url ?? null, f.docs_url ?? null, f.app_url ?? null, JSON.stringify(f.chain_ids ?? []), f.last_verified_at));
      events.forEach((e, i) => projectEvent.run(r.id, i + 1, e.id, e.type, e.occurred_at));
      funding.forEach((f, i) => round.run(r.id, i + 1, f.round_type, f.amount_usd, f.announced_at));
      const observations = list((r.tvl as Row | null)?.observations);
      const latest = observations[observations.length - 1];
      if (latest) tvl.run(r.id, latest.date, latest.tvl_usd);
    },
    tokens(r) {
      token.run(r.id, r.slug, r.symbol, r.name, r.project_id ?? null);
      list(r.contracts).forEach((c, i) => contract.run(r.id, i + 1, c.chain_id, c.address));
      const m = r.market as Row | null;
      if (m) market.run(++marketPosition, r.id, m.price_usd, m.market_cap_usd, m.volume_24h_usd, m.change_24h_pct, m.change_7d_pct);
      const t = r.tokenomics as Record<string, Row> | null;
      if (t) {
        tokenomics.run(r.id, t.model_type?.verified_at ?? "", t.model_type?.value ?? null);
        list(t.allocations?.value).forEach((a, i) => allocation.run(r.id, i + 1, a.bucket, a.percent_supply, a.amount_native));
      }
    },
    people(r) {
      const investments = list(r.investments), roles = list(r.roles);
      person.run(r.id, r.slug, r.full_name, investments.length, roles.length);
      investments.forEach((v, i) => investment.run(r.id, i + 1, v.project_id));
      roles.forEach((v, i) => role.run(r.id, i + 1, v.project_id ?? v.fund_id, v.is_current ? 1 : 0));
    },
    funds(r) { fund.run(r.id, r.slug, r.name, r.fund_type); },
    stocks(r) { stock.run(r.id, r.slug, r.name, r.ticker, r.exchange, r.region, r.crypto_angle, r.ipo_date, r.is_pre_ipo ? 1 : 0); },
    narratives(r) {
      const projects = Array.isArray(r.projects) ? (r.projects as string[]) : [], timeline = list(r.timeline);
      narrative.run(r.id, r.slug, r.name, projects.length);
      projects.forEach((id, i) => narrativeProject.run(r.id, i + 1, id));
      timeline.forEach((t, i) => narrativeEntry.run(r.id, i + 1, t.date, t.title));
    },
    news(r) {
      news.run(r.id, r.title, r.summary, r.published_at, r.sentiment, r.language);
      list(r.entities).forEach((e, i) => newsEntity.run(r.id, i + 1, e.type, e.id));
    },
    events(r) { event.run(r.id, r.slug, r.name, r.event_type, r.start_date, r.end_date, r.city, r.country, r.website_url ?? null); },
    x_accounts(r, line) {
      const linked = r.linked_entity as Row | null;
      xAccount.run(`xa_${line}`, linked?.type ?? null, linked?.id ?? null);
    },
    trending(r, line) {
      const entity = r.entity as Row;
      trending.run(r.day, line, entity.type, entity.id ?? entity.handle);
    },
  };
}
