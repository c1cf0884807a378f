// Step 5: the eligibility policy of compiler/policy.ts as SQL, each family's own
// (families/*/index.ts). Builds the k_* tables (the records and list items that are kept, with
// their deterministic position) in the kept database, and counts every excluded record per
// family and rule for the manifest.
import { families } from "./families/index.ts";
import { eligibilityRules } from "./policy.ts";

const q = (s: string): string => `'${s.replace(/'/g, "''")}'`;

export function eligibilitySql(compiledAt: Date): string {
  return `${families.map((f) => f.eligibility?.(compiledAt) ?? "").join("\n")}\n`;
}

/** Whether an entity of a given type is kept, as a correlated SQL expression. */
export const eligibleEntity = (typeColumn: string, idColumn: string): string => `CASE ${typeColumn}
${families.flatMap(({ reference: r }) => (r === undefined ? [] : [`  WHEN '${r.type}' THEN EXISTS (SELECT 1 FROM ${r.kept} k WHERE k.${r.id} = ${idColumn})\n`])).join("")}  ELSE 0 END`;

/**
 * One query counting every excluded record: a row (family, rule, count) per rule of the policy
 * table that the family counts (its `exclusions`), families by name, rules in the policy's order.
 * Read-only over the staging and k_* tables.
 */
export function exclusionCountsQuery(compiledAt: Date): string {
  const selects: string[] = [];
  for (const family of [...families].sort((a, b) => (a.family < b.family ? -1 : 1))) {
    const counts = family.exclusions({ compiledAt, eligibleEntity });
    for (const rule of eligibilityRules) {
      const expr = counts[rule.id];
      if (expr !== undefined) selects.push(`SELECT ${q(family.family)}, ${q(rule.id)}, ${expr}`);
    }
  }
  return selects.join("\nUNION ALL ");
}

/** `{ family: { rule: count } }` from the rows of exclusionCountsQuery. */
export function exclusionRecord(rows: readonly unknown[][]): Record<string, Record<string, number>> {
  const excluded: Record<string, Record<string, number>> = {};
  for (const [family, rule, count] of rows as Array<[string, string, number]>) (excluded[family] ??= {})[rule] = count;
  return excluded;
}
