// At scale 1 the sample holds what every operation needs to answer with real data, on any date,
// plus records of every kind the compiler must exclude.
import { beforeAll, describe, expect, it } from "vitest";
import { fundTypes } from "../../compiler/families/funds/source.ts";
import { hotTiers } from "../../compiler/families/projects/source.ts";
import { cryptoAngles, stockRegions } from "../../compiler/families/stocks/source.ts";
import { AS_OF, DAY, HOUR, OTHER_AS_OFS, ageMs, loadSample, visible, ymd, type Sample } from "../_support/sample.ts";

const distinct = <T>(values: T[]): T[] => [...new Set(values)].sort();

describe.each([AS_OF, ...OTHER_AS_OFS])("sample at scale 1, as of %s", (asOf) => {
  let s: Sample;
  beforeAll(async () => {
    s = await loadSample(asOf);
  });
  const today = () => ymd(asOf.getTime());

  it("has over 200 visible tokens observed within the last hour, ranked past 200", () => {
    const fresh = s.tokens.filter((t) => visible(t) && t.market && t.market.market_eligible && ageMs(asOf, t.market.observed_at) <= HOUR);
    expect(fresh.length).toBeGreaterThan(200);
    expect(fresh.every((t) => ageMs(asOf, t.market!.observed_at) > 0)).toBe(true);
    const ranks = s.tokens.flatMap((t) => (t.market ? [t.market.rank] : []));
    expect(new Set(ranks).size).toBe(ranks.length);
    expect(Math.max(...ranks)).toBeGreaterThan(220);
    const universe = fresh.filter((t) => t.market!.rank <= 200).map((t) => t.market!);
    for (const period of ["change_24h_pct", "change_7d_pct"] as const) {
      expect(universe.filter((m) => m[period] > 0).length).toBeGreaterThan(20);
      expect(universe.filter((m) => m[period] < 0).length).toBeGreaterThan(20);
    }
  });

  it("has exactly one btc and one eth benchmark, the two largest market caps", () => {
    const byCap = s.tokens.filter((t) => t.market).sort((a, b) => b.market!.market_cap_usd - a.market!.market_cap_usd);
    expect(s.tokens.filter((t) => t.benchmark === "btc").map((t) => t.id)).toEqual([byCap[0]!.id]);
    expect(s.tokens.filter((t) => t.benchmark === "eth").map((t) => t.id)).toEqual([byCap[1]!.id]);
    for (const token of byCap.slice(0, 2)) {
      expect(visible(token) && token.market!.market_eligible && ageMs(asOf, token.market!.observed_at) <= HOUR).toBe(true);
    }
  });

  it("has tokenomics fields fresh and confident on many tokens, and stale and low-confidence ones", () => {
    const fields = s.tokens.flatMap((t) =>
      t.tokenomics ? [t.tokenomics.model_type, t.tokenomics.allocations, t.tokenomics.vesting_schedules, t.tokenomics.utilities] : [],
    ).filter((f) => f !== undefined);
    const good = (f: { verified_at: string; confidence: number }) => ageMs(asOf, f.verified_at) < 90 * DAY && f.confidence >= 0.9;
    const tokensWithGood = s.tokens.filter((t) => visible(t) && t.tokenomics?.allocations && good(t.tokenomics.allocations));
    expect(tokensWithGood.length).toBeGreaterThan(100);
    expect(s.tokens.some((t) => visible(t) && t.tokenomics?.vesting_schedules && good(t.tokenomics.vesting_schedules))).toBe(true);
    expect(fields.filter((f) => ageMs(asOf, f.verified_at) > 180 * DAY).length).toBeGreaterThan(10);
    expect(fields.filter((f) => f.confidence < 0.8).length).toBeGreaterThan(10);
  });

  it("has over 30 visible funds of every type, all re-scored within the last week", () => {
    const funds = s.funds.filter(visible);
    expect(funds.length).toBeGreaterThan(30);
    expect(distinct(funds.map((f) => f.fund_type))).toEqual([...fundTypes].sort());
    expect(s.funds.every((f) => ageMs(asOf, f.score_updated_at) < 7 * DAY)).toBe(true);
  });

  it("has over 30 visible stocks whose 30 most recent IPOs cover every region and angle, some pre-IPO", () => {
    const stocks = s.stocks.filter(visible);
    expect(stocks.length).toBeGreaterThan(30);
    const recent = [...stocks].sort((a, b) => b.ipo_date.localeCompare(a.ipo_date) || a.id.localeCompare(b.id)).slice(0, 30);
    expect(distinct(recent.map((x) => x.region))).toEqual([...stockRegions].sort());
    expect(distinct(recent.map((x) => x.crypto_angle))).toEqual([...cryptoAngles].sort());
    const preIpo = stocks.filter((x) => x.is_pre_ipo);
    expect(preIpo.length).toBeGreaterThanOrEqual(3);
    for (const x of preIpo) expect(x.ipo_date > today() && x.ipo_date <= ymd(asOf.getTime() + 60 * DAY)).toBe(true);
  });

  it("has about 60 projects with reviewed features, verified events and rounds, and the excluded kinds", () => {
    expect(s.projects.length).toBeGreaterThanOrEqual(60);
    const visibleProjects = s.projects.filter(visible);
    const features = visibleProjects.flatMap((p) => p.features);
    expect(visibleProjects.filter((p) => p.features.some((f) => f.review_state === "reviewed")).length).toBeGreaterThan(30);
    expect(features.some((f) => f.review_state === "unreviewed")).toBe(true);
    expect(visibleProjects.filter((p) => p.events.some((e) => e.verified)).length).toBeGreaterThan(30);
    expect(visibleProjects.flatMap((p) => p.events).some((e) => !e.verified)).toBe(true);
    expect(visibleProjects.filter((p) => p.funding.some((r) => r.verified)).length).toBeGreaterThan(20);
    expect(visibleProjects.flatMap((p) => p.funding).some((r) => !r.verified)).toBe(true);
    expect(s.projects.some((p) => p.features.filter((f) => f.review_state === "reviewed").length > 20)).toBe(true);
    expect(s.projects.some((p) => p.events.filter((e) => e.verified).length > 20)).toBe(true);
    expect(s.projects.some((p) => p.funding.filter((r) => r.verified).length > 20)).toBe(true);
  });

  it("has confirmed TVL dated the as-of day or the day before, and a few conflicting or stale mappings", () => {
    const latest = (p: Sample["projects"][number]) => p.tvl!.observations.at(-1)!;
    const served = s.projects.filter(
      (p) => visible(p) && p.tvl?.mapping.state === "confirmed" && latest(p).series_id === p.tvl.mapping.series_id,
    );
    const fresh = served.filter((p) => [today(), ymd(asOf.getTime() - DAY)].includes(latest(p).date));
    expect(fresh.length).toBeGreaterThan(20);
    expect(s.projects.filter((p) => p.tvl?.mapping.state === "conflicting").length).toBeGreaterThanOrEqual(2);
    expect(s.projects.some((p) => p.tvl && latest(p).series_id !== p.tvl.mapping.series_id)).toBe(true);
    expect(served.some((p) => latest(p).date < ymd(asOf.getTime() - 2 * DAY))).toBe(true);
  });

  it("has fresh trend observations (last 3 hours) in every hot tier, and stale ones", () => {
    const latest = s.projects.filter((p) => visible(p) && p.trend.length > 0).map((p) => p.trend.at(-1)!);
    const fresh = latest.filter((o) => ageMs(asOf, o.observed_at) <= 3 * HOUR);
    expect(fresh.length).toBeGreaterThanOrEqual(25);
    expect(distinct(fresh.map((o) => o.hot_tier))).toEqual([...hotTiers].sort());
    expect(latest.some((o) => ageMs(asOf, o.observed_at) > DAY)).toBe(true);
  });

  it("has people with verified investments and roles, including unverified ones", () => {
    const people = s.people.filter(visible);
    expect(people.filter((p) => p.investments.some((i) => i.verified)).length).toBeGreaterThan(20);
    expect(people.filter((p) => p.roles.length > 0).length).toBeGreaterThan(30);
    expect(people.some((p) => p.investments.some((i) => !i.verified))).toBe(true);
    expect(people.some((p) => new Set(p.investments.filter((i) => i.verified).map((i) => i.project_id)).size > 20)).toBe(true);
  });

  it("has curated news with entities and stories that are not curated", () => {
    const curated = s.news.filter((n) => visible(n) && n.curated);
    expect(curated.length).toBeGreaterThan(50);
    expect(curated.every((n) => n.entities.length > 0 && ageMs(asOf, n.published_at) > 0)).toBe(true);
    expect(distinct(curated.flatMap((n) => n.entities.map((e) => e.type)))).toEqual(["fund", "narrative", "person", "project", "stock", "token"]);
    expect(s.news.some((n) => !n.curated)).toBe(true);
  });

  it("has narratives with projects and timelines, fresh signals in the last 10 hours, stale ones, and lists over 20", () => {
    const served = s.narratives.filter(visible);
    expect(served.length).toBeGreaterThanOrEqual(8);
    const fresh = served.filter((n) => n.signal !== null && ageMs(asOf, n.signal.observed_at) <= 10 * HOUR);
    expect(fresh.length).toBeGreaterThanOrEqual(5);
    expect(fresh.every((n) => ageMs(asOf, n.signal!.observed_at) > 0)).toBe(true);
    expect(s.narratives.some((n) => n.signal !== null && ageMs(asOf, n.signal.observed_at) > 24 * HOUR)).toBe(true);
    expect(served.some((n) => n.signal === null)).toBe(true);
    expect(served.every((n) => n.projects.length > 0 && n.timeline.length > 0)).toBe(true);
    expect(served.some((n) => n.projects.length > 20)).toBe(true);
    expect(served.some((n) => n.timeline.length > 20)).toBe(true);
    expect(served.every((n) => n.timeline.every((t) => t.date < today()))).toBe(true);
  });

  it("has partners at funds: people with current roles at visible funds, and past ones", () => {
    const roles = s.people.filter(visible).flatMap((p) => p.roles.filter((r) => r.fund_id !== null));
    const funds = new Set(s.funds.filter(visible).map((f) => f.id));
    expect(new Set(roles.filter((r) => r.is_current && funds.has(r.fund_id!)).map((r) => r.fund_id)).size).toBeGreaterThanOrEqual(5);
    expect(roles.some((r) => !r.is_current)).toBe(true);
  });

  it("has validated events upcoming, ongoing and ended relative to the as-of date, and unvalidated ones", () => {
    const served = s.events.filter((e) => visible(e) && e.dates_validated);
    const day = today();
    expect(served.filter((e) => e.start_date > day).length).toBeGreaterThanOrEqual(3);
    expect(served.filter((e) => e.start_date <= day && day <= e.end_date).length).toBeGreaterThanOrEqual(3);
    expect(served.filter((e) => e.end_date < day).length).toBeGreaterThanOrEqual(3);
    expect(s.events.every((e) => e.start_date <= e.end_date)).toBe(true);
    expect(s.events.some((e) => !e.dates_validated)).toBe(true);
  });

  it("has X accounts linked to projects and people, and unlinked ones", () => {
    const accounts = s.x_accounts.filter(visible);
    expect(accounts.some((a) => a.linked_entity?.type === "project")).toBe(true);
    expect(accounts.some((a) => a.linked_entity?.type === "person")).toBe(true);
    expect(accounts.some((a) => a.linked_entity === null)).toBe(true);
  });

  it("has live trending signals from the last hour and daily ones for each of the previous 30 days, for every entity type", () => {
    const types = ["narrative", "person", "project", "stock", "token", "x_account"];
    const live = s.trending.filter((t) => t.day === "live" && ageMs(asOf, t.observed_at) <= HOUR);
    expect(live.length).toBeGreaterThanOrEqual(20);
    expect(distinct(live.map((t) => t.entity.type))).toEqual(types);
    expect(s.trending.some((t) => t.day === "live" && ageMs(asOf, t.observed_at) > 2 * HOUR)).toBe(true);
    for (let d = 1; d <= 30; d += 1) {
      const day = ymd(asOf.getTime() - d * DAY);
      const signals = s.trending.filter((t) => t.day === day);
      expect(distinct(signals.map((t) => t.entity.type)), day).toEqual(types);
      expect(signals.every((t) => t.observed_at.startsWith(day))).toBe(true);
    }
    expect(s.trending.some((t) => t.day === today())).toBe(false);
  });

  it("has hidden and deleted records in every family that has the flags", () => {
    for (const family of ["projects", "tokens", "people", "funds", "stocks", "narratives", "news", "events", "x_accounts"] as const) {
      const records = s[family] as { hidden: boolean; deleted: boolean }[];
      expect(records.some((r) => r.hidden), family).toBe(true);
      expect(records.some((r) => r.deleted), family).toBe(true);
    }
    expect(s.tokens.some((t) => t.market && !t.market.market_eligible)).toBe(true);
    expect(s.tokens.some((t) => t.market && ageMs(asOf, t.market.observed_at) > 6 * HOUR)).toBe(true);
  });

  it("fills every internal field on some records", () => {
    const lines = [s.projects, s.tokens, s.people, s.funds, s.stocks, s.news, s.events, s.x_accounts].flat() as Record<string, unknown>[];
    for (const field of ["sources", "provider_ids", "evidence", "raw", "media", "curator_notes", "ingested_at"]) {
      expect(lines.filter((r) => r[field] !== undefined).length, field).toBeGreaterThan(20);
      expect(lines.filter((r) => r[field] === undefined).length, field).toBeGreaterThan(20);
    }
  });
});
