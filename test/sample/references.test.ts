// Every reference in the sample names a record that exists (and, where the compiler requires
// it, a visible one), and every id, slug and handle is unique in its family.
import { beforeAll, describe, expect, it } from "vitest";
import { AS_OF, loadSample, visible, type Sample } from "../_support/sample.ts";

const duplicates = (values: string[]): string[] => values.filter((v, i) => values.indexOf(v) !== i);
const normalise = (handle: string): string => handle.replace(/^@/, "").toLowerCase();

describe.each([1, 4])("sample references at scale %d", (scale) => {
  let s: Sample;
  beforeAll(async () => {
    s = await loadSample(AS_OF, scale);
  });

  const ids = (records: { id: string }[]) => new Set(records.map((r) => r.id));

  it("has unique ids, slugs and handles", () => {
    for (const family of ["projects", "tokens", "people", "funds", "stocks", "narratives", "events"] as const) {
      const records = s[family] as { id: string; slug: string }[];
      expect(duplicates(records.map((r) => r.id)), family).toEqual([]);
      expect(duplicates(records.map((r) => r.slug)), family).toEqual([]);
    }
    expect(duplicates(s.news.map((n) => n.id))).toEqual([]);
    expect(duplicates(s.x_accounts.map((a) => normalise(a.handle)))).toEqual([]);
    expect(duplicates(s.projects.flatMap((p) => p.features.map((f) => f.feature_id)))).toEqual([]);
    expect(duplicates(s.projects.flatMap((p) => p.events.map((e) => e.id)))).toEqual([]);
    expect(duplicates(s.projects.flatMap((p) => p.funding.map((r) => r.id)))).toEqual([]);
  });

  it("links tokens to existing projects and funding investors to existing funds and people", () => {
    const projects = ids(s.projects);
    for (const token of s.tokens) if (token.project_id !== null) expect(projects.has(token.project_id), token.id).toBe(true);
    const investors = new Set([...s.funds.map((f) => `fund:${f.id}`), ...s.people.map((p) => `person:${p.id}`)]);
    for (const round of s.projects.flatMap((p) => p.funding)) {
      for (const investor of round.investors) expect(investors.has(`${investor.type}:${investor.id}`), round.id).toBe(true);
    }
  });

  it("ties investments and roles to visible projects or funds, and rounds to a round of that project", () => {
    const rounds = new Map(s.projects.filter(visible).map((p) => [p.id, new Set(p.funding.map((r) => r.id))]));
    const funds = ids(s.funds.filter(visible));
    for (const person of s.people) {
      for (const investment of person.investments) {
        expect(rounds.has(investment.project_id), person.id).toBe(true);
        if (investment.round_id !== null) expect(rounds.get(investment.project_id)!.has(investment.round_id), person.id).toBe(true);
      }
      for (const role of person.roles) {
        expect(role.project_id === null ? funds.has(role.fund_id!) : rounds.has(role.project_id), person.id).toBe(true);
      }
    }
    expect(s.people.flatMap((p) => p.investments).some((i) => i.round_id !== null)).toBe(true);
    expect(s.people.filter(visible).flatMap((p) => p.roles).filter((r) => r.fund_id !== null && r.is_current).length).toBeGreaterThan(5);
  });

  it("names visible projects in narratives, each once", () => {
    const projects = ids(s.projects);
    for (const narrative of s.narratives) {
      expect(duplicates(narrative.projects), narrative.id).toEqual([]);
      for (const project of narrative.projects) expect(projects.has(project), narrative.id).toBe(true);
    }
  });

  it("names existing entities in news, and visible projects and people in X account links", () => {
    const known = new Set([
      ...s.projects.map((r) => `project:${r.id}`), ...s.tokens.map((r) => `token:${r.id}`),
      ...s.people.map((r) => `person:${r.id}`), ...s.funds.map((r) => `fund:${r.id}`),
      ...s.stocks.map((r) => `stock:${r.id}`), ...s.narratives.map((r) => `narrative:${r.id}`),
    ]);
    for (const story of s.news) for (const e of story.entities) expect(known.has(`${e.type}:${e.id}`), story.id).toBe(true);
    const linkable = new Set([
      ...s.projects.filter(visible).map((r) => `project:${r.id}`), ...s.people.filter(visible).map((r) => `person:${r.id}`),
    ]);
    for (const account of s.x_accounts) {
      if (account.linked_entity) expect(linkable.has(`${account.linked_entity.type}:${account.linked_entity.id}`), account.handle).toBe(true);
    }
  });

  it("names visible entities in trending signals, X accounts by handle, once per entity and day", () => {
    const known = new Set([
      ...s.projects.filter(visible).map((r) => `project:${r.id}`), ...s.tokens.filter(visible).map((r) => `token:${r.id}`),
      ...s.people.filter(visible).map((r) => `person:${r.id}`),
      ...s.stocks.filter(visible).map((r) => `stock:${r.id}`), ...s.narratives.filter(visible).map((r) => `narrative:${r.id}`),
      ...s.x_accounts.filter(visible).map((a) => `x_account:${normalise(a.handle)}`),
    ]);
    const keys = s.trending.map((t) => {
      const key = t.entity.type === "x_account" ? `x_account:${normalise(t.entity.handle)}` : `${t.entity.type}:${t.entity.id}`;
      expect(known.has(key), key).toBe(true);
      return `${t.day}/${key}`;
    });
    expect(duplicates(keys)).toEqual([]);
  });

  it("has exactly one btc and one eth benchmark", () => {
    expect(s.tokens.filter((t) => t.benchmark === "btc")).toHaveLength(1);
    expect(s.tokens.filter((t) => t.benchmark === "eth")).toHaveLength(1);
  });
});
