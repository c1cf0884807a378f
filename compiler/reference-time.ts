// The compile's reference time (decision 22): what eligibility and the precomputed snapshots are
// relative to. Given by the caller (`--as-of`), or derived from the sources: the newest
// observation or verification time of any record, so that the same sources always compile to
// the same bytes. Observation times later than the reference time are problems.
import type Database from "better-sqlite3";
import { families } from "./families/index.ts";

/** Every observation or verification time the sources carry (each family's `observations`), with its file. */
const observationColumns = families.flatMap((f) => (f.observations ?? []).map((c) => ({ ...c, file: f.file })));

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
