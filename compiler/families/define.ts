// The shape of a family (in the spirit of Nuxt Content's defineCollection): everything the compile
// phases need to know about one source file, in one definition. The phase files (staging.ts,
// checks.ts, reference-time.ts, eligibility.ts, output.ts, search-index.ts, stale.ts, shrink.ts)
// loop over the list in ./index.ts, so that adding a family is adding a folder here; none of them
// names a family. The snapshot's tables are declared in the contract (snapshot/schema.ts) and
// a family's diff spec in snapshot/specs.ts, both referenced by name.
import type { z } from "zod";
import type { freshnessBounds } from "../../snapshot/freshness.ts";
import type { RuleId } from "../policy.ts";
import type { SearchKeyFamily } from "../../snapshot/search-keys.ts";

/** DATETIME is TEXT normalised to ISO 8601 UTC with milliseconds by SQLite's strftime on insert. */
export type ColumnType = "TEXT" | "INTEGER" | "NUMERIC" | "DATETIME";

export type Json = Record<string, unknown>;

/** Step 2: how a valid record becomes typed staging rows (staging.ts). */
export interface Staging<Table extends string> {
  /** Table → columns, in the order `rows` pushes values. */
  tables: Record<Table, Record<string, ColumnType>>;
  /**
   * Pushes the rows of one valid record (zod's output, defaults applied), a whole row per `push`
   * (this runs a few million times). `xid` and `handleHash` are the keyed X ids of the handle the
   * record names (`xHandle`), else null.
   */
  rows(record: Json, line: number, to: (table: Table) => unknown[], xid: string | null, handleHash: string | null): void;
  /** Run once the family's rows are all in: the indexes of every later join. */
  indexSql: string;
}

/** A family whose records others name by id (news entities, investors, trending entries, links). */
export interface ReferenceTarget {
  /** The entity type a reference names, e.g. `project`. */
  type: string;
  /**
   * The staging table and its id column; its kept (k_*) table has the same columns. Records that
   * failed validation keep the id they claim in `<table>_invalid` (line, id), so that a reference
   * to them is not reported again.
   */
  table: string;
  id: string;
  kept: string;
  /** The source field a failed record claims its id by; a `handle` is keyed with the X secret (x-ids.ts). */
  claimedBy: "id" | "handle";
}

/** SQL over every family's reference target, for the cross-record checks (checks.ts). */
export interface ReferenceSql {
  /** Whether a record of `type` with that id exists, valid or not. */
  exists(type: string, idColumn: string): string;
  /** Whether the record named by a type column and an id column exists (see `exists`). Pass qualified outer columns. */
  known(typeColumn: string, idColumn: string): string;
  /** Whether a record of `type` with that id failed validation. */
  invalid(type: string, idColumn: string): string;
}

/** An observation or verification time the records carry (reference-time.ts): staging table, column, line column, path. */
export interface ObservationColumn {
  table: string;
  column: string;
  line: string;
  path: string;
}

export interface EligibilityContext {
  compiledAt: Date;
  /** Whether an entity of a given type is kept, as a correlated SQL expression. */
  eligibleEntity(typeColumn: string, idColumn: string): string;
}

/** A precomputed snapshot with a freshness bound whose observations come from this family (stale.ts). */
export interface StaleSpec {
  /** The family's exclusion rule that empties the snapshot when every observation is too old. */
  staleRule?: RuleId;
  /** file, line, path and time of the observation to point at: the newest stale one (empty) or the oldest kept one. */
  locate: string;
}

/**
 * How search finds and ranks a family's records (decision 29). What is matched is the contract's
 * layout (snapshot/search-keys.ts); how prominent each record is, the family declares here.
 */
export interface SearchDeclaration {
  /** Its entry in the snapshot contract's search layout. */
  layout: SearchKeyFamily;
  /** The kept table whose `prominence` column holds the curated prominence, and its id column. */
  curated: { table: string; id: string };
  /** Compiled prominence signals: SELECTs of (entity id, score 1-1000) over the snapshot's tables (policy.ts, prominenceScores). */
  signals?: readonly string[];
  /** Appearances in the family's own trending snapshots, besides trending_entities: SELECTs of one entity id per appearance. */
  appearances?: readonly string[];
}

export interface FamilyDefinition<Table extends string = string> {
  /** The name in the manifest's `excluded`, in `cei schema` and in problems. */
  family: string;
  file: string;
  /** What curators write, validated per record; `cei schema` and docs/source-format.md derive from it. */
  schema: z.ZodType;
  staging: Staging<Table>;
  /** Records that name an X handle: staged under keyed ids, so they need the X secret. */
  xHandle?: {
    of(record: Json): string | undefined;
    /** Reported without a secret: at each such record, or once for the file (`once`). */
    missingSecret: { path: string; message: string; once: boolean };
  };
  reference?: ReferenceTarget;
  /** Step 3: statements adding `file:line: path: message` rows to `problems`. */
  checks?(references: ReferenceSql): string[];
  /** Times that count toward the reference time, and must not be after it. */
  observations?: readonly ObservationColumn[];
  /** Step 5: the family's k_* tables, in the kept database; may read the k_* tables of families listed before it. */
  eligibility?(compiledAt: Date): string;
  /** One SQL count per rule of the policy table (policy.ts) that excludes some of the family's records. */
  exclusions(context: EligibilityContext): Partial<Record<RuleId, string>>;
  /** Step 6a: inserts into the family's snapshot tables (snapshot/schema.ts), in primary-key order. */
  output?: string;
  /**
   * Deterministic SQL functions the family's output calls, by name: computations written once in
   * the snapshot contract that both halves share (the unlock rule, snapshot/unlocks.ts).
   */
  functions?: Record<string, (...values: never[]) => unknown>;
  /** How search finds and ranks its records (search-index.ts). */
  search?: SearchDeclaration;
  /** The name of the family's spec in snapshot/specs.ts: `cei diff` compares its records, and the shrink guard counts them. */
  diff?: string;
  /**
   * Step 6b: the precomputed snapshots the family feeds, by name (those of snapshot/specs.ts's
   * rankingSpecs are filled in that order, so the file's bytes depend on it): the statements that
   * fill their tables from the k_* tables, and, for each with an `asOf`, its row in the snapshots
   * table (the SQL expression of its as_of; null: it has none).
   */
  rankings?: Partial<Record<string, { sql: string; asOf?: string | null }>>;
  /**
   * Rankings computed on a side thread into a database of their own (trending_days,
   * k_trending_top); `eligibleEntity` is the SQL condition that an entity of any family is kept.
   */
  sideRankings?(compiledAt: Date, eligibleEntity: (typeColumn: string, idColumn: string) => string): string;
  /**
   * What the family's records curate (decision 28), by name: the family itself (its `family` name)
   * and each kind of data an operation reads (`market`, `project_tvl`, `fund_rankings`, ...), as an
   * SQL count over the family's staging tables of the valid records that carry it. Written to the
   * manifest's `curated`; an operation whose data counts 0 there is not offered (server/policy.ts,
   * operationSources).
   */
  curated: Record<string, string>;
  /** Precomputed snapshots, by their name in the freshness table, that are stale when this family's observations are. */
  stale?: Partial<Record<keyof typeof freshnessBounds, StaleSpec>>;
}

/** Checks the definition's staging rows against its tables; the list holds them untyped. */
export function defineFamily<Table extends string>(definition: FamilyDefinition<Table>): FamilyDefinition {
  return definition as unknown as FamilyDefinition;
}
