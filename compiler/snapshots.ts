// Step 6b: the precomputed snapshots (docs/architecture.md, "Snapshots"): fixed-size, sorted
// with deterministic tie-breaks, each with its as_of.
import { rankingSpecs } from "../snapshot/specs.ts";
import { eligibleEntity } from "./eligibility.ts";
import { families } from "./families/index.ts";

/** Every family's precomputed snapshots, in the order of rankingSpecs (then by name). */
function familyRankings(): Array<{ name: string; sql: string; asOf?: string | null }> {
  const order = rankingSpecs.map((spec) => spec.name);
  const rank = (name: string) => (order.includes(name) ? order.indexOf(name) : order.length);
  return families
    .flatMap((family) => Object.entries(family.rankings ?? {}).map(([name, ranking]) => ({ name, ...ranking! })))
    .sort((x, y) => rank(x.name) - rank(y.name) || (x.name < y.name ? -1 : x.name > y.name ? 1 : 0));
}

export function snapshotSql(): string {
  return familyRankings().map((ranking) => ranking.sql).join("\n");
}

/**
 * The rankings computed on a side thread into their own database (the trending entities): they
 * only read the staging and k_* tables, and their result is small; trendingCopySql copies it.
 */
export function sideRankingSql(compiledAt: Date): string {
  return families.map((family) => family.sideRankings?.(compiledAt, eligibleEntity) ?? "").join("\n");
}

/** Then, on the snapshot: the side database's trending tables, and every snapshot's as_of. */
export function trendingCopySql(side: string): string {
  return `
INSERT INTO main.trending_days (day, as_of) SELECT day, as_of FROM ${side}.trending_days ORDER BY day;
INSERT INTO main.trending_entities (day, position, entity_type, entity_id)
  SELECT day, position, entity_type, entity_id FROM ${side}.k_trending_top ORDER BY day, position;
INSERT INTO snapshots (name, as_of)
  ${familyRankings().filter((ranking) => ranking.asOf !== undefined).map((ranking) => `SELECT '${ranking.name}', ${ranking.asOf ?? "NULL"}`).join("\n  UNION ALL ")}
  ORDER BY 1;
`;
}
