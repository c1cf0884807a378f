// X accounts: the handle is read to derive an opaque id and a search hash (x-ids.ts), and never
// written; an account may link to a project or a person. Named by handle in trending entries.
import { defineFamily, type Json } from "../define.ts";
import { duplicate, intoProblems, visibilityCounts } from "../_sql.ts";
import { bit, nullable } from "../_values.ts";
import { xAccountSource } from "./source.ts";

/** Lines a duplicate-handle problem lists: enough to find the records, bounded for a handle a thousand records share. */
const SHARED_HANDLE_LINES = 10;

export const xAccounts = defineFamily({
  family: "x_accounts",
  file: "x_accounts.jsonl",
  schema: xAccountSource,
  staging: {
    tables: {
      // `handle` as written, for problems only: staging is scratch, and the output never reads it.
      s_x: {
        line: "INTEGER", xid: "TEXT", handle_hash: "TEXT", handle: "TEXT", linked_type: "TEXT", linked_id: "TEXT", hidden: "INTEGER", deleted: "INTEGER",
        prominence: "INTEGER",
      },
    },
    rows(r, line, to, xid, handleHash) {
      const linked = r.linked_entity as Json | null;
      to("s_x").push(line, xid, handleHash, r.handle, nullable(linked?.type), nullable(linked?.id), bit(r.hidden), bit(r.deleted), nullable(r.prominence));
    },
    indexSql: "CREATE INDEX s_x_id ON s_x (xid);",
  },
  xHandle: {
    of: (r) => r.handle as string,
    missingSecret: { path: "(root)", message: "an X secret is required to compile X accounts", once: true },
  },
  reference: { type: "x_account", table: "s_x", id: "xid", kept: "k_x", claimedBy: "handle" },
  checks: (references) => [
    // At every record after the first that uses a handle: the handle, how many records use it, and
    // their lines (the first SHARED_HANDLE_LINES; then "…").
    `${intoProblems} SELECT 'x_accounts.jsonl', d.line, 'handle',
     printf('duplicate X handle %s (case and @ ignored): %d records use it, on lines %s%s; keep one, linked to the one entity the account speaks for',
       json_quote(d.handle), d.n,
       (SELECT group_concat(line, ', ') FROM (SELECT line FROM s_x y WHERE y.xid = d.xid ORDER BY line LIMIT ${SHARED_HANDLE_LINES})),
       CASE WHEN d.n > ${SHARED_HANDLE_LINES} THEN ', …' ELSE '' END)
   FROM (SELECT line, xid, handle, min(line) OVER (PARTITION BY xid) AS first, count(*) OVER (PARTITION BY xid) AS n FROM s_x) d
   WHERE d.line > d.first;`,
    // An X account that is itself visible must link to a visible record (a hidden account may
    // keep its link to a record that was hidden with it).
    `${intoProblems} SELECT 'x_accounts.jsonl', x.line, 'linked_entity.id',
     CASE WHEN NOT ${references.known("x.linked_type", "x.linked_id")} THEN printf('unknown %s %s', x.linked_type, json_quote(x.linked_id))
       ELSE printf('%s %s is hidden or deleted', x.linked_type, json_quote(x.linked_id)) END
   FROM s_x x
   WHERE x.linked_type IS NOT NULL AND (NOT ${references.known("x.linked_type", "x.linked_id")} OR (x.hidden = 0 AND x.deleted = 0 AND NOT CASE x.linked_type
     WHEN 'project' THEN EXISTS (SELECT 1 FROM s_projects t WHERE t.id = x.linked_id AND t.hidden = 0 AND t.deleted = 0) OR ${references.invalid("project", "x.linked_id")}
     ELSE EXISTS (SELECT 1 FROM s_people t WHERE t.id = x.linked_id AND t.hidden = 0 AND t.deleted = 0) OR ${references.invalid("person", "x.linked_id")} END));`,
  ],
  eligibility: () => `
CREATE TABLE kept.k_x AS SELECT * FROM s_x WHERE hidden = 0 AND deleted = 0;
CREATE INDEX kept.k_x_id ON k_x (xid);`,
  exclusions: () => visibilityCounts("s_x"),
  output: `
INSERT INTO x_accounts SELECT xid, linked_type, linked_id FROM k_x ORDER BY xid;
INSERT INTO x_handle_index SELECT handle_hash, xid FROM k_x ORDER BY handle_hash;
`,
  search: { layout: "x_account", curated: { table: "k_x", id: "xid" } },
  diff: "x_accounts",
  curated: { x_accounts: "(SELECT count(*) FROM s_x)" },
});
