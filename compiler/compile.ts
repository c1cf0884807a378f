// The compiler's entry point: curated JSONL sources to one read-only SQLite snapshot
// (docs/architecture.md, "Compiler design"). Bad input never throws: it yields every problem as
// `file:line: path: message`, and leaves no output file and any earlier file untouched.
import { closeSync, existsSync, fsyncSync, openSync, renameSync, statSync } from "node:fs";
import Database from "better-sqlite3";
import { crossRecordChecks } from "./checks.ts";
import { eligibilitySql, exclusionCountsQuery, exclusionRecord } from "./eligibility.ts";
import { contentHash, manifestEntries, writeManifest } from "./manifest.ts";
import { entityOutputSql } from "./output.ts";
import { laneDatabasePaths, readSources, stagingThreads } from "./read-sources.ts";
import { openScratch, removeDatabase } from "./scratch.ts";
import { registerSearchFunctions, searchIndexSql } from "./search-index.ts";
import { snapshotTables } from "./snapshot-schema.ts";
import { snapshotSql, trendingCopySql, trendingSql } from "./snapshots.ts";
import { problemsDdl } from "./staging.ts";
import { startJob, type StartedJob, type WorkerJob } from "./workers.ts";

export interface CompileOptions {
  sourceDir: string;
  outFile: string;
  compiledAt: Date;
  xSecret?: string;
  onProgress?: (message: string) => void;
  /** Threads that read and stage the sources: by default one per core (at most 4) for inputs of 4 MiB or more, else 1. */
  threads?: number;
}

export type CompileResult = { ok: true; manifest: Record<string, unknown> } | { ok: false; problems: string[] };

function sourceProblems(options: CompileOptions): string[] {
  if (!existsSync(options.sourceDir) || !statSync(options.sourceDir).isDirectory()) {
    return [`${options.sourceDir}: (root): source directory not found`];
  }
  if (Number.isNaN(options.compiledAt.getTime())) return ["(options): compiledAt: expected a valid date"];
  return [];
}

/**
 * The checks as one SQL job: the cross-record checks into the job's own problems table, then
 * every problem, validation problems included, in order. A line's problems are all in one
 * database (its lane's, or the checks'), so ordering by file, line and seq is the input order.
 */
function checksJob(dbPath: string, staging: readonly Staging[]): WorkerJob {
  const problemTables = ["main", ...staging.map((s) => s.name)].map((db) => `SELECT file, line, seq, path, message FROM ${db}.problems`);
  return {
    kind: "sql",
    dbPath,
    attach: staging.map((s) => [s.name, s.path]),
    sql: [problemsDdl, ...crossRecordChecks].join("\n"),
    query: `SELECT printf('%s:%d: %s: %s', file, line, path, message) FROM (${problemTables.join(" UNION ALL ")}) ORDER BY file, line, seq`,
  };
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
  const progress = options.onProgress;
  const xSecret = options.xSecret === undefined || options.xSecret === "" ? undefined : options.xSecret;
  const scratch = `${options.outFile}.${process.pid}`;
  const stagingPath = `${scratch}.staging`;
  const checksPath = `${scratch}.checks`;
  const keptPath = `${scratch}.kept`;
  const sidePath = `${scratch}.side`;
  const tmpPath = `${scratch}.tmp`;
  const threads = stagingThreads(options.sourceDir, options.threads);
  let checks: StartedJob | undefined;
  let out: Database.Database | undefined;
  try {
    const staging: Staging[] = [{ name: "stg", path: stagingPath }];
    const lane0 = openScratch(stagingPath);
    try {
      const lanes = await readSources(lane0, stagingPath, { sourceDir: options.sourceDir, xSecret, onProgress: progress, threads });
      lanes.forEach((path, i) => staging.push({ name: `lane${i + 1}`, path }));
    } finally {
      lane0.close();
    }

    // The checks only read the staging databases: with more than one thread they run on a worker,
    // beside the snapshot's construction, whose result is only kept if they find no problem.
    progress?.("checking references");
    checks = startJob(checksJob(checksPath, staging), threads > 1);

    progress?.("writing snapshot");
    let built: { entries: ManifestEntries } | { error: Error };
    try {
      out = openScratch(tmpPath);
      registerSearchFunctions(out);
      out.exec(snapshotTables);
      for (const s of staging) attach(out, s.name, s.path);
      attach(out, "kept", keptPath);
      built = { entries: await buildSnapshot(out, { compiledAt: options.compiledAt, threads, staging, keptPath, sidePath, progress }) };
    } catch (error) {
      built = { error: error as Error };
    }
    const problems = ((await checks.result) as string[][]).map((row) => row[0]!);
    progress?.("references checked");
    if (problems.length > 0) return { ok: false, problems };
    if ("error" in built) throw built.error;
    out = out!;
    for (const name of [...staging.map((s) => s.name), "kept", "side"]) out.exec(`DETACH DATABASE ${name}`);
    progress?.("hashing");
    const manifest = writeManifest(out, built.entries, contentHash(tmpPath, built.entries), options.compiledAt);
    // No VACUUM: rows are only ever inserted, in sorted order, so the file is already compact
    // and byte-identical across runs; VACUUM cost about 8% of compile time for 8% of file size.
    out.close();
    out = undefined;
    const fd = openSync(tmpPath, "r+");
    fsyncSync(fd);
    closeSync(fd);
    renameSync(tmpPath, options.outFile);
    return { ok: true, manifest };
  } catch (error) {
    return { ok: false, problems: [`(compiler): (root): ${(error as Error).message}`] };
  } finally {
    await checks?.close();
    out?.close();
    for (const path of [stagingPath, ...laneDatabasePaths(stagingPath), checksPath, keptPath, sidePath, tmpPath]) removeDatabase(path);
  }
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
async function buildSnapshot(out: Database.Database, options: BuildOptions): Promise<ManifestEntries> {
  const { compiledAt, progress } = options;
  out.exec(`BEGIN; ${eligibilitySql(compiledAt)} COMMIT;`);
  progress?.("eligibility decided");

  const job: WorkerJob = {
    kind: "sql",
    dbPath: options.sidePath,
    attach: [...options.staging.map((s): [string, string] => [s.name, s.path]), ["kept", options.keptPath]],
    sql: trendingSql(compiledAt),
    query: exclusionCountsQuery(compiledAt),
  };
  const side = startJob(job, options.threads > 1);
  try {
    out.exec("BEGIN");
    out.exec(entityOutputSql);
    progress?.("entity tables written");
    out.exec(snapshotSql());
    progress?.("snapshots computed");
    out.exec(searchIndexSql);
    progress?.("search index built");
    out.exec("COMMIT");
    const excluded = exclusionRecord((await side.result) as unknown[][]);
    progress?.("trending and exclusions computed");
    attach(out, "side", options.sidePath);
    out.exec("BEGIN");
    out.exec(trendingCopySql("side"));
    const entries = manifestEntries(out, { excluded });
    out.exec("COMMIT");
    return entries;
  } finally {
    await side.close();
  }
}
