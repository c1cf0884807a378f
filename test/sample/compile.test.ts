// The sample compiles with no problems, every snapshot is fresh at the as-of instant, and the
// compiler's exclusion rules each find records to exclude.
import { join } from "node:path";
import Database from "better-sqlite3";
import { describe, expect, it } from "vitest";
import { compileSnapshot } from "../../compiler/compile.ts";
import { freshnessBounds } from "../../snapshot/freshness.ts";
import { AS_OF, OTHER_AS_OFS, generateSample, tempDir } from "../_support/sample.ts";

type Manifest = {
  snapshots: Record<string, string | null>;
  row_counts: Record<string, number>;
  excluded: Record<string, Record<string, number>>;
};

async function compileSample(asOf: Date): Promise<{ manifest: Manifest; outFile: string }> {
  const { dir } = await generateSample(asOf);
  const outFile = join(tempDir("cei-sample-db-"), "snapshot.db");
  const result = await compileSnapshot({ sourceDir: dir, outFile, compiledAt: asOf, xSecret: "test-secret" });
  if (!result.ok) throw new Error(`the sample did not compile:\n${result.problems.join("\n")}`);
  return { manifest: result.manifest as unknown as Manifest, outFile };
}

describe.each([AS_OF, ...OTHER_AS_OFS])("compileSnapshot of the scale-1 sample as of %s", (asOf) => {
  it("compiles with no problems into full snapshots that are fresh at the as-of instant", async () => {
    const { manifest, outFile } = await compileSample(asOf);
    const age = (name: string) => asOf.getTime() - Date.parse(manifest.snapshots[name]!);
    expect(age("trending_live")).toBeLessThanOrEqual(freshnessBounds.trending_live / 2);
    expect(age("market")).toBeLessThanOrEqual(freshnessBounds.market / 4);
    expect(age("trending_projects")).toBeLessThanOrEqual(freshnessBounds.trending_projects / 4);
    expect(age("fund_rankings")).toBeLessThanOrEqual(freshnessBounds.fund_rankings / 4);

    const rows = manifest.row_counts;
    expect(rows.trending_projects).toBe(30);
    expect(rows.fund_rankings).toBe(30);
    expect(rows.stock_rankings).toBe(30);
    expect(rows.market_assets).toBeGreaterThan(170);
    expect(rows.trending_days).toBe(31);
    for (const table of ["project_features", "project_events", "funding_rounds", "project_tvl", "tokenomics", "person_investments",
      "person_roles", "news", "news_entities", "events", "x_accounts"]) {
      expect(rows[table], table).toBeGreaterThan(10);
    }

    const db = new Database(outFile, { readonly: true, fileMustExist: true });
    const tiers = db.prepare("SELECT DISTINCT hot_tier FROM trending_projects ORDER BY 1").pluck().all();
    const benchmarks = db.prepare("SELECT btc_price_usd > 0 AND eth_price_usd > 0 FROM market_snapshot").pluck().get();
    db.close();
    expect(tiers).toEqual(["early", "hot", "rising", "viral", "watch"]);
    expect(benchmarks).toBe(1);
  });
});

describe("compileSnapshot exclusions on the scale-1 sample", () => {
  it("excludes records under every rule the sample is built to exercise", async () => {
    const { manifest } = await compileSample(AS_OF);
    const expected: Record<string, string[]> = {
      projects: ["hidden", "deleted", "feature_not_reviewed", "event_not_verified", "round_not_verified",
        "tvl_mapping_inconsistent", "tvl_stale", "trend_observation_stale", "over_list_cap"],
      tokens: ["hidden", "deleted", "tokenomics_field_stale", "tokenomics_field_low_confidence", "market_observation_stale",
        "market_outside_top_200", "market_ineligible", "reference_ineligible"],
      people: ["hidden", "deleted", "investment_not_verified", "over_list_cap"],
      funds: ["hidden", "deleted"],
      stocks: ["hidden", "deleted"],
      news: ["hidden", "deleted", "news_not_curated", "reference_ineligible"],
      events: ["hidden", "deleted", "event_dates_not_validated"],
      x_accounts: ["hidden", "deleted"],
      trending: ["trending_signal_stale"],
    };
    for (const [family, rules] of Object.entries(expected)) {
      for (const rule of rules) expect(manifest.excluded[family]?.[rule], `${family}.${rule}`).toBeGreaterThan(0);
    }
  });
});
