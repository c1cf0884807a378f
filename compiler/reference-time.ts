// The compile's reference time (decision 22): what eligibility and the precomputed snapshots are
// relative to. Given by the caller (`--as-of`), or derived from the sources: the newest
// observation or verification time of any record, so that the same sources always compile to
// the same bytes. Observation times later than the reference time are problems.
import type Database from "better-sqlite3";

/** Every observation or verification time the sources carry: staging table, column, file, path. */
const observationColumns = [
  { table: "s_features", column: "last_verified_at", file: "projects.jsonl", line: "project_line", path: "printf('features[%d].last_verified_at', idx)" },
  { table: "s_trend_observations", column: "observed_at", file: "projects.jsonl", line: "project_line", path: "printf('trend[%d].observed_at', idx)" },
  { table: "s_tvl", column: "obs_date || 'T00:00:00.000Z'", file: "projects.jsonl", line: "project_line", path: "'tvl.observations'" },
  { table: "s_tokens", column: "observed_at", file: "tokens.jsonl", line: "line", path: "'market.observed_at'" },
  { table: "s_tokenomics_fields", column: "verified_at", file: "tokens.jsonl", line: "token_line", path: "printf('tokenomics.%s.verified_at', field)" },
  { table: "s_funds", column: "score_updated_at", file: "funds.jsonl", line: "line", path: "'score_updated_at'" },
  { table: "s_trending", column: "observed_at", file: "trending.jsonl", line: "line", path: "'observed_at'" },
] as const;

const newestObservationSql = `SELECT max(t) FROM (${observationColumns
  .map((c) => `SELECT max(${c.column}) AS t FROM ${c.table}`)
  .join(" UNION ALL ")})`;

/** The newest observation or verification time of the staged sources (attached to `db`), if any. */
export function derivedReferenceTime(db: Database.Database): Date | undefined {
  const newest = db.prepare(newestObservationSql).pluck().get() as string | null;
  return newest === null ? undefined : new Date(newest);
}

const q = (s: string): string => `'${s.replace(/'/g, "''")}'`;

/**
 * SQL adding a problem for every observation or verification time after the reference time
 * (`compiledAt`) or, when that is derived, after the wall clock (`now`), if given.
 */
export function futureObservationChecks(options: { compiledAt?: Date; now?: Date }): string[] {
  if (options.compiledAt !== undefined) {
    const at = options.compiledAt.toISOString();
    return observationsAfter(at, `the reference time ${at} (--as-of)`);
  }
  if (options.now === undefined) return [];
  const now = options.now.toISOString();
  return observationsAfter(now, `the current time ${now}: it is in the future`);
}

/** Staged times are ISO with milliseconds, so `bound` compares as text. */
function observationsAfter(bound: string, what: string): string[] {
  return observationColumns.map((c) => `INSERT INTO problems (file, line, path, message)
  SELECT ${q(c.file)}, ${c.line}, ${c.path}, printf('%s is after %s', ${c.column}, ${q(what)})
  FROM ${c.table} WHERE ${c.column} > ${q(bound)};`);
}
