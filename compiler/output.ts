// Step 6a: the entity tables of the snapshot, from the kept (k_*) staging tables: each family's
// `output` (families/*/index.ts), in family order, each inserted in primary-key order so that
// the file is reproducible.
import { families } from "./families/index.ts";

export const entityOutputSql = families.map((f) => f.output ?? "").join("\n");
