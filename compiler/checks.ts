// Step 3: cross-record checks over the staging tables, each family's own (families/*/index.ts).
// Each yields `file:line: path: message` rows in the problems table, beside the validation
// problems of step 1.
import type { ReferenceSql, ReferenceTarget } from "./families/define.ts";
import { families } from "./families/index.ts";

/** The reference target of each type others may name, in family order. */
const referenced = new Map(families.flatMap((f): Array<[string, ReferenceTarget]> => (f.reference === undefined ? [] : [[f.reference.type, f.reference]])));

const target = (type: string): ReferenceTarget => {
  const r = referenced.get(type);
  if (r === undefined) throw new Error(`no family is referenced as ${type}`);
  return r;
};

/**
 * Whether a record of `type` with that id exists, valid or not: a record that failed validation
 * is reported once, for its own mistake, and not again at every reference to it.
 */
const exists = (type: string, idColumn: string): string => {
  const r = target(type);
  return `(EXISTS (SELECT 1 FROM ${r.table} t WHERE t.${r.id} = ${idColumn}) OR EXISTS (SELECT 1 FROM ${r.table}_invalid t WHERE t.id = ${idColumn}))`;
};

const references: ReferenceSql = {
  exists,
  known: (typeColumn, idColumn) => `CASE ${typeColumn} ${[...referenced.keys()].map((type) => `WHEN '${type}' THEN ${exists(type, idColumn)}`).join(" ")} ELSE 0 END`,
  invalid: (type, idColumn) => `EXISTS (SELECT 1 FROM ${target(type).table}_invalid t WHERE t.id = ${idColumn})`,
};

export const crossRecordChecks: readonly string[] = families.flatMap((f) => f.checks?.(references) ?? []);
