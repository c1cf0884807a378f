// The compiler's entry point: curated JSONL sources to one read-only SQLite snapshot
// (docs/architecture.md, "Compiler design"). Bad input never throws: it yields every problem as
// `file:line: path: message` (at most `maxProblems` of each kind, with a summary of every kind
// when some were left out), and leaves no output file and any earlier file untouched.
import { closeSync, existsSync, fsyncSync, openSync, renameSync, rmSync, statSync } from "node:fs";
import { dirname, join } from "node:path";
import Database from "better-sqlite3";
import { crossRecordChecks } from "./checks.ts";
import { curatedCounts, notPublishedCounts } from "./curated.ts";
import { eligibilitySql, exclusionCountsQuery, exclusionRecord } from "./eligibility.ts";
import { contentHash, manifestEntries, writeManifest } from "./manifest.ts";
import { entityOutputSql, registerFamilyFunctions } from "./output.ts";
import { MAX_PROBLEMS_PER_KIND, problemKind, problemReport, problemsKept, type KeptProblem, type ProblemSummary } from "./problem-report.ts";
import { readSources, stagingThreads } from "./read-sources.ts";
import { derivedReferenceTime, futureObservationChecks } from "./reference-time.ts";
import { createScratchDir, openScratch, removeStaleScratch, scratchDirFor } from "./scratch.ts";
import { registerSearchFunctions, searchIndexSql } from "./search-index.ts";
import { snapshotTables } from "../snapshot/schema.ts";
import { sourceFiles } from "./source-files.ts";
import { checkReplacement } from "./shrink.ts";
import { sideRankingSql, snapshotSql, trendingCopySql } from "./snapshots.ts";
import { staleSnapshotProblems } from "./stale.ts";
import { problemsDdl } from "./staging.ts";
import { startJob, type StartedJob, type WorkerJob } from "./workers.ts";
import type { SnapshotDiff } from "../snapshot/diff.ts";

export interface CompileOptions {
  sourceDir: string;
  outFile: string;
  /**
   * The reference time (CLI `--as-of`) that eligibility and the snapshots are relative to.
   * Without it, the newest observation or verification time of the sources (reference-time.ts).
   */
  compiledAt?: Date;
  /**
   * The wall clock, read by the caller: when the reference time is derived, an observation after
   * it is a problem. Never written anywhere. Without it, that check is skipped.
   */
  now?: Date;
  /** Snapshots already stale at the reference time are warnings instead of problems (CLI `--allow-stale`). */
  allowStale?: boolean;
  /** Replace the snapshot at `outFile` even when a family or snapshot loses more than SHRINK_LIMIT (CLI `--allow-shrink`; shrink.ts). */
  allowShrink?: boolean;
  /** Compare with the snapshot at `outFile` on success too: the result's `changes` (cei compile prints their summary). */
  describeChanges?: boolean;
  xSecret?: string;
  onProgress?: (message: string) => void;
  /** Problems listed of each kind (CLI `--max-problems`; default MAX_PROBLEMS_PER_KIND); every problem is counted in the summary. */
  maxProblems?: number;
  /** Threads that read and stage the sources: by default one per core (at most 4) for inputs of 4 MiB or more, else 1. */
  threads?: number;
}

/**
 * `changes`: the new snapshot against the one it replaces (null: there was none), when
 * `describeChanges` was asked, or when the shrink guard refused it (shrink.ts).
 */
export type CompileResult =
  | { ok: true; manifest: Record<string, unknown>; referenceTime: Date; warnings: string[]; changes?: SnapshotDiff | null }
  | { ok: false; problems: string[]; summary?: ProblemSummary; changes?: SnapshotDiff };

function sourceProblems(options: CompileOptions): string[] {
  if (!existsSync(options.sourceDir) || !statSync(options.sourceDir).isDirectory()) {
    return [`${options.sourceDir}: (root): source directory not found`];
  }
  if (!existsSync(dirname(options.outFile))) return [`${options.outFile}: (root): the output folder ${dirname(options.outFile)} does not exist`];
  for (const [name, value] of [["compiledAt", options.compiledAt], ["now", options.now]] as const) {
    if (value !== undefined && Number.isNaN(value.getTime())) return [`(options): ${name}: expected a valid date`];
  }
  if (options.maxProblems !== undefined && !(Number.isSafeInteger(options.maxProblems) && options.maxProblems >= 0)) {
    return ["(options): maxProblems: expected an integer >= 0"];
  }
  return [];
}

const problemText = "CASE line WHEN 0 THEN printf('%s: %s: %s', file, path, message) ELSE printf('%s:%d: %s: %s', file, line, path, message) END";
const problemLocation = "CASE line WHEN 0 THEN file ELSE printf('%s:%d', file, line) END";

/**
 * The checks as one SQL job: the cross-record checks into the job's own problems table, then the
 * report of every problem, validation problems included: the first `keep` of each kind, in order
 * (tag 0: kind, text, location), then by kind the problems not returned (tag 1: kind, count), the
 * lanes' uncounted ones included. A line's problems are all in one database (its lane's, or the
 * checks'), so ordering by file, line and seq is the input order. SQLite sorts on disk past its
 * cache, so that a million problems from the checks cost no more memory than a few.
 */
function checksJob(dbPath: string, staging: readonly Staging[], options: CompileOptions, keep: number): WorkerJob {
  const databases = ["main", ...staging.map((s) => s.name)];
  const problemTables = databases.map((db) => `SELECT file, line, seq, path, message FROM ${db}.problems`);
  const overflowTables = databases.map((db) => `SELECT kind, count FROM ${db}.problem_overflow`);
  return {
    kind: "sql",
    dbPath,
    attach: staging.map((s) => [s.name, s.path]),
    sql: [problemsDdl, ...crossRecordChecks, ...futureObservationChecks(options)].join("\n"),
    query: `WITH p AS MATERIALIZED (SELECT file, line, seq, path, message, problem_kind(file, path, message) AS kind FROM (${problemTables.join(" UNION ALL ")})),
      r AS (SELECT *, row_number() OVER (PARTITION BY kind ORDER BY file, line, seq) AS rn FROM p)
      SELECT 0 AS tag, kind, ${problemText}, ${problemLocation}, file, line, seq FROM r WHERE rn <= ${keep}
      UNION ALL SELECT 1, kind, count(*) - ${keep}, NULL, NULL, NULL, NULL FROM p GROUP BY kind HAVING count(*) > ${keep}
      UNION ALL SELECT 1, kind, sum(count), NULL, NULL, NULL, NULL FROM (${overflowTables.join(" UNION ALL ")}) GROUP BY kind
      ORDER BY tag, file, line, seq`,
  };
}

/** The checks job's rows as the compile's problems and summary. */
function reportOfRows(rows: unknown[][], maxProblems: number): ReturnType<typeof problemReport> {
  const kept: KeptProblem[] = [];
  const uncounted: Array<[string, number]> = [];
  for (const [tag, kind, text, location] of rows as Array<[number, string, string | number, string | null]>) {
    if (tag === 0) kept.push({ kind, text: text as string, location: location! });
    else uncounted.push([kind, text as number]);
  }
  return problemReport(kept, uncounted, maxProblems);
}

type ManifestEntries = Record<string, unknown>;

/** A staging database and the name it is attached as. */
interface Staging {
  name: string;
  path: string;
}

function attach(db: Database.Database, name: string, path: string): void {
  db.prepare(`ATTACH DATABASE ? AS ${name}`).run(path);
  db.pragma(`${name}.journal_mode = OFF`);
  db.pragma(`${name}.synchronous = OFF`);
  db.pragma(`${name}.cache_size = -8192`);
}

export async function compileSnapshot(options: CompileOptions): Promise<CompileResult> {
  const early = sourceProblems(options);
  if (early.length > 0) return { ok: false, problems: early };
  const maxProblems = options.maxProblems ?? MAX_PROBLEMS_PER_KIND;
  const keep = problemsKept(maxProblems);
  const files = sourceFiles(options.sourceDir, options.outFile, keep);
  if (files.empty) {
    const kept = files.problems.kept.map((p) => ({ kind: problemKind(p.file, p.path, p.message), text: `${p.file}: ${p.path}: ${p.message}`, location: p.file }));
    return { ok: false, ...problemReport(kept, files.problems.overflow(), maxProblems) };
  }
  const progress = options.onProgress;
  const xSecret = options.xSecret === undefined || options.xSecret === "" ? undefined : options.xSecret;
  removeStaleScratch(options.outFile);
  const scratchDir = scratchDirFor(options.outFile);
  const stagingPath = join(scratchDir, "staging");
  const checksPath = join(scratchDir, "checks");
  const keptPath = join(scratchDir, "kept");
  const sidePath = join(scratchDir, "side");
  const tmpPath = join(scratchDir, "snapshot");
  const threads = stagingThreads(options.sourceDir, options.threads);
  let checks: StartedJob | undefined;
  let out: Database.Database | undefined;
  try {
    createScratchDir(scratchDir);
    const staging: Staging[] = [{ name: "stg", path: stagingPath }];
    const lane0 = openScratch(stagingPath);
    try {
      const lanes = await readSources(lane0, stagingPath, { sourceDir: options.sourceDir, xSecret, onProgress: progress, threads, keepProblems: keep });
      lanes.forEach((path, i) => staging.push({ name: `lane${i + 1}`, path }));
      // Problems of a whole file are on line 0, printed without it (checksJob).
      const addFileProblem = lane0.prepare("INSERT INTO problems (file, line, path, message) VALUES (?, 0, ?, ?)");
      const addOverflow = lane0.prepare("INSERT INTO problem_overflow (kind, count) VALUES (?, ?)");
      lane0.transaction(() => {
        for (const problem of files.problems.kept) addFileProblem.run(problem.file, problem.path, problem.message);
        for (const [kind, count] of files.problems.overflow()) addOverflow.run(kind, count);
      })();
    } finally {
      lane0.close();
    }

    // The checks only read the staging databases: with more than one thread they run on a worker,
    // beside the snapshot's construction, whose result is only kept if they find no problem.
    progress?.("checking references");
    checks = startJob(checksJob(checksPath, staging, options, keep), threads > 1);

    progress?.("writing snapshot");
    let built: Built | { error: Error } | undefined;
    try {
      out = openScratch(tmpPath);
      registerSearchFunctions(out);
      registerFamilyFunctions(out);
      out.exec(snapshotTables);
      for (const s of staging) attach(out, s.name, s.path);
      attach(out, "kept", keptPath);
      const referenceTime = options.compiledAt ?? derivedReferenceTime(out);
      if (referenceTime !== undefined) {
        built = await buildSnapshot(out, { compiledAt: referenceTime, threads, staging, keptPath, sidePath, progress });
      }
    } catch (error) {
      built = { error: error as Error };
    }
    const report = reportOfRows((await checks.result) as unknown[][], maxProblems);
    progress?.("references checked");
    if (report.problems.length > 0 || report.summary !== undefined) return { ok: false, ...report };
    if (built === undefined) {
      return { ok: false, problems: [`${options.sourceDir}: (root): no observation or verification time to derive the reference time from; give --as-of`] };
    }
    if ("error" in built) throw built.error;
    if (built.stale.length > 0 && options.allowStale !== true) return { ok: false, problems: built.stale };
    out = out!;
    for (const name of [...staging.map((s) => s.name), "kept", "side"]) out.exec(`DETACH DATABASE ${name}`);
    progress?.("hashing");
    const manifest = writeManifest(out, built.entries, contentHash(tmpPath, built.entries));
    // No VACUUM: rows are only ever inserted, in sorted order, so the file is already compact
    // and byte-identical across runs; VACUUM cost about 8% of compile time for 8% of file size.
    out.close();
    out = undefined;
    const replacement = checkReplacement(tmpPath, {
      outFile: options.outFile, allowShrink: options.allowShrink === true, describeChanges: options.describeChanges === true,
    });
    const changes = replacement.changes === undefined ? {} : { changes: replacement.changes };
    if (replacement.problems.length > 0) return { ok: false, problems: replacement.problems, ...(replacement.changes ? { changes: replacement.changes } : {}) };
    const fd = openSync(tmpPath, "r+");
    fsyncSync(fd);
    closeSync(fd);
    renameSync(tmpPath, options.outFile);
    return { ok: true, manifest, referenceTime: built.referenceTime, warnings: built.stale, ...changes };
  } catch (error) {
    return { ok: false, problems: [`(compiler): (root): ${(error as Error).message}`] };
  } finally {
    await checks?.close();
    out?.close();
    rmSync(scratchDir, { recursive: true, force: true });
  }
}

interface Built {
  entries: ManifestEntries;
  referenceTime: Date;
  /** Snapshots already stale at the reference time (stale.ts). */
  stale: string[];
}

interface BuildOptions {
  compiledAt: Date;
  threads: number;
  staging: readonly Staging[];
  keptPath: string;
  sidePath: string;
  progress: CompileOptions["onProgress"];
}

/**
 * Steps 5-6: eligibility (the k_* tables), then the entity tables, snapshots and search index on
 * this thread while a side job (on a worker when there are threads to spare) computes the
 * trending entities and the exclusion counts, which only read the staging and k_* tables.
 */
async function buildSnapshot(out: Database.Database, options: BuildOptions): Promise<Built> {
  const { compiledAt, progress } = options;
  out.exec(`BEGIN; ${eligibilitySql(compiledAt)} COMMIT;`);
  progress?.("eligibility decided");

  const job: WorkerJob = {
    kind: "sql",
    dbPath: options.sidePath,
    attach: [...options.staging.map((s): [string, string] => [s.name, s.path]), ["kept", options.keptPath]],
    sql: sideRankingSql(compiledAt),
    query: exclusionCountsQuery(compiledAt),
  };
  const side = startJob(job, options.threads > 1);
  try {
    out.exec("BEGIN");
    out.exec(entityOutputSql);
    progress?.("entity tables written");
    out.exec(snapshotSql());
    progress?.("snapshots computed");
    out.exec("COMMIT");
    const excluded = exclusionRecord((await side.result) as unknown[][]);
    progress?.("trending and exclusions computed");
    attach(out, "side", options.sidePath);
    out.exec("BEGIN");
    out.exec(trendingCopySql("side"));
    // After the trending snapshots: their appearances are a prominence signal (decision 29).
    out.exec(searchIndexSql);
    progress?.("search index built");
    const entries = manifestEntries(out, { excluded, curated: curatedCounts(out), notPublished: notPublishedCounts(out, options.staging.map((s) => s.name)) });
    out.exec("COMMIT");
    const stale = staleSnapshotProblems(out, compiledAt, excluded);
    return { entries: { ...entries, reference_time: compiledAt.toISOString() }, referenceTime: compiledAt, stale };
  } finally {
    await side.close();
  }
}
