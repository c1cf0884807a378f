// Step 6a: the entity tables of the snapshot, from the kept (k_*) staging tables: each family's
// `output` (families/*/index.ts), in family order, each inserted in primary-key order so that
// the file is reproducible.
import type Database from "better-sqlite3";
import { families } from "./families/index.ts";

export const entityOutputSql = families.map((f) => f.output ?? "").join("\n");

/** The SQL functions the families' output calls (deterministic: the same sources give the same bytes). */
export function registerFamilyFunctions(db: Database.Database): void {
  for (const family of families) {
    for (const [name, fn] of Object.entries(family.functions ?? {})) {
      db.function(name, { deterministic: true }, fn as (...values: unknown[]) => unknown);
    }
  }
}
