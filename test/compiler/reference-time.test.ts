// The reference time (docs/source-format.md, "Reference time"): observations after it, and
// precomputed snapshots already stale at it, are problems with file:line.
import { mkdirSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, expect, test } from "vitest";
import { compileSnapshot } from "../../compiler/compile.ts";
import { FIXTURE_X_SECRET, fixtureDir } from "../_support/fixtures.ts";
import { writeSources } from "../_support/sources.ts";

const dir = mkdtempSync(join(tmpdir(), "cei-reference-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
const compile = (options: { compiledAt?: Date; now?: Date; allowStale?: boolean; allowShrink?: boolean }) =>
  compileSnapshot({ sourceDir: fixtureDir("valid"), outFile: join(dir, "s.db"), xSecret: FIXTURE_X_SECRET, ...options });

test("a snapshot already stale at the reference time is a problem, or with allowStale a warning", async () => {
  const stale = [
    "trending.jsonl:4: observed_at: the trending_live snapshot would be empty: 9 observation(s) are more than 2 hours before the reference time 2026-03-05T12:00:00.000Z (the newest is 2026-03-01T11:45:00.000Z)",
    "projects.jsonl:5: trend: the trending_projects snapshot would be empty: 5 observation(s) are more than 24 hours before the reference time 2026-03-05T12:00:00.000Z (the newest is 2026-03-01T09:00:00.000Z)",
    "narratives.jsonl:1: signal.observed_at: the narrative_rankings snapshot would be empty: 3 observation(s) are more than 24 hours before the reference time 2026-03-05T12:00:00.000Z (the newest is 2026-03-01T10:00:00.000Z)",
    "tokens.jsonl:3: market.observed_at: the market snapshot would be empty: 9 observation(s) are more than 6 hours before the reference time 2026-03-05T12:00:00.000Z (the newest is 2026-03-01T11:58:00.000Z)",
  ];
  const compiledAt = new Date("2026-03-05T12:00:00.000Z");
  expect(await compile({ compiledAt })).toEqual({ ok: false, problems: stale });
  const accepted = await compile({ compiledAt, allowStale: true });
  expect(accepted.ok && accepted.warnings).toEqual(stale);
  // Fund scores are ranked whatever their age, so a stale as_of is named by the oldest ranked fund.
  // (Over the file compiled at 03-05, whose dated trending days would all go: the shrink guard is not what is tested here.)
  const later = await compile({ compiledAt: new Date("2026-04-01T12:00:00.000Z"), allowStale: true, allowShrink: true });
  expect(later.ok && later.warnings.find((w) => w.includes("fund_rankings"))).toBe(
    "funds.jsonl:4: score_updated_at: the fund_rankings snapshot would be stale: its as_of 2026-02-10T00:00:00.000Z is more than 30 days before the reference time 2026-04-01T12:00:00.000Z",
  );
});

test("without a reference time, an observation after the wall clock is a problem", async () => {
  const result = await compile({ now: new Date("2026-03-01T11:56:00.000Z") });
  expect(result).toEqual({
    ok: false,
    problems: ["tokens.jsonl:3: market.observed_at: 2026-03-01T11:58:00.000Z is after the current time 2026-03-01T11:56:00.000Z: it is in the future"],
  });
});

test("sources without any observation or verification time need a reference time", async () => {
  const source = join(dir, "events-only");
  mkdirSync(source);
  writeSources(source, { "events.jsonl": readFileSync(join(fixtureDir("valid"), "events.jsonl")) });
  const result = await compileSnapshot({ sourceDir: source, outFile: join(dir, "events.db") });
  expect(result).toEqual({ ok: false, problems: [`${source}: (root): no observation or verification time to derive the reference time from; give --as-of`] });
  expect((await compileSnapshot({ sourceDir: source, outFile: join(dir, "events.db"), compiledAt: new Date("2026-03-01T12:00:00Z") })).ok).toBe(true);
});
