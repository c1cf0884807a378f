// SQL building blocks the families share: checks, exclusion counts and output counts.
import { eligibilityThresholds } from "../policy.ts";

/** Where every check adds its problems (`file:line: path: message`). */
export const intoProblems = "INSERT INTO problems (file, line, path, message)";

export const quote = (s: string): string => `'${s.replace(/'/g, "''")}'`;

/** A later record repeating an earlier record's key. */
export function duplicate(table: string, file: string, column: string, path: string, label: string): string {
  return `${intoProblems}
  SELECT '${file}', line, '${path}', printf('duplicate ${label} %s (first on line %d)', json_quote(${column}), first)
  FROM (SELECT line, ${column}, min(line) OVER (PARTITION BY ${column}) AS first FROM ${table} WHERE ${column} IS NOT NULL)
  WHERE line > first;`;
}

/** The `hidden` and `deleted` exclusion counts of a family's top-level records. */
export const visibilityCounts = (table: string): { hidden: string; deleted: string } => ({
  hidden: `(SELECT count(*) FROM ${table} WHERE hidden = 1)`,
  deleted: `(SELECT count(*) FROM ${table} WHERE hidden = 0 AND deleted = 1)`,
});

const cap = eligibilityThresholds.listCap;

/** Items beyond the list cap, over every owner. */
export const overCap = (table: string, owner: string): string =>
  `(SELECT coalesce(sum(n - ${cap}), 0) FROM (SELECT count(*) AS n FROM ${table} GROUP BY ${owner}) WHERE n > ${cap})`;

/** Items per owner, to join as `(owner, n)`. */
export const countBy = (table: string, owner: string): string => `(SELECT ${owner} AS owner, count(*) AS n FROM ${table} GROUP BY ${owner})`;
