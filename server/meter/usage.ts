// Usage for billing (decision 37): charged requests and the credits they cost, read from the ledger,
// grouped by key, UTC day and operation. One query for both meters. Only charges are in the
// ledger as requests: an error or a free operation (GET /v1/key) costs nothing and leaves no row.
import { KeyManagementError, usageDimensions, type UsageDimension, type UsageQuery, type UsageRow } from "./key-store.ts";

const SELECTED: Record<UsageDimension, { select: string; group: string }> = {
  key: { select: "l.key_id AS key_id, k.name AS name", group: "l.key_id, k.name" },
  day: { select: "substr(l.created_at, 1, 10) AS day", group: "substr(l.created_at, 1, 10)" },
  operation: { select: "l.operation AS operation", group: "l.operation" },
};

/** `--by key,day`: one or more dimensions, each once. */
export function parseUsageBy(value: string): UsageDimension[] {
  const names = value.split(",").map((name) => name.trim());
  const unknown = names.filter((name) => !(usageDimensions as readonly string[]).includes(name));
  if (unknown.length > 0 || names.length === 0) {
    throw new KeyManagementError(`invalid --by "${value}" (expected one or more of ${usageDimensions.join(", ")}, comma-separated)`);
  }
  if (new Set(names).size !== names.length) throw new KeyManagementError(`invalid --by "${value}": a dimension is named twice`);
  return names as UsageDimension[];
}

/** The statement (with `?` placeholders) and its values; created_at is ISO 8601 UTC, so text order is time order. */
export function usageStatement(query: UsageQuery): { sql: string; values: string[] } {
  const where = ["l.kind = 'charge'"];
  const values: string[] = [];
  if (query.from !== undefined) {
    where.push("l.created_at >= ?");
    values.push(new Date(query.from).toISOString());
  }
  if (query.to !== undefined) {
    where.push("l.created_at < ?");
    values.push(new Date(query.to).toISOString());
  }
  const dimensions = query.by.map((dimension) => SELECTED[dimension]);
  const group = dimensions.map((dimension) => dimension.group).join(", ");
  const sql = `SELECT ${dimensions.map((dimension) => dimension.select).join(", ")},
      count(*) AS requests, CAST(-sum(l.delta) AS bigint) AS credits
    FROM ledger l LEFT JOIN keys k ON k.id = l.key_id
    WHERE ${where.join(" AND ")}
    GROUP BY ${group}`;
  return { sql, values };
}

/** Groups in the order of their dimensions, compared as plain strings (the same on both meters, whatever PostgreSQL's collation). */
export function sortedUsage(rows: UsageRow[], by: readonly UsageDimension[]): UsageRow[] {
  const fields = by.map((dimension) => (dimension === "key" ? "key_id" : dimension));
  return rows.sort((a, b) => {
    for (const field of fields) {
      const x = a[field]!;
      const y = b[field]!;
      if (x !== y) return x < y ? -1 : 1;
    }
    return 0;
  });
}
