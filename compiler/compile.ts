// The compiler's entry point: curated JSONL sources to one read-only SQLite snapshot
// (docs/architecture.md, "Compiler design"). Bad input never throws: it yields every problem as
// `file:line: path: message`, and leaves no output file and any earlier file untouched.
import { closeSync, existsSync, fsyncSync, openSync, renameSync, rmSync, statSync } from "node:fs";
import Database from "better-sqlite3";
import { crossRecordChecks } from "./checks.ts";
import { countExclusions, eligibilitySql } from "./eligibility.ts";
import { contentHash, manifestEntries, writeManifest } from "./manifest.ts";
import { entityOutputSql } from "./output.ts";
import { rawStagingDdl, readSources } from "./read-sources.ts";
import { registerSearchFunctions, searchIndexSql } from "./search-index.ts";
import { snapshotTables } from "./snapshot-schema.ts";
import { snapshotSql } from "./snapshots.ts";
import { flattenSql } from "./staging.ts";
import { handleSearchKey } from "./x-ids.ts";

export interface CompileOptions {
  sourceDir: string;
  outFile: string;
  compiledAt: Date;
  xSecret?: string;
  onProgress?: (message: string) => void;
  /** Validate on a worker thread: by default only when the input is large enough to gain from it. */
  validateOnWorker?: boolean;
}

export type CompileResult = { ok: true; manifest: Record<string, unknown> } | { ok: false; problems: string[] };

/** Temporary files live on the output's file system, so that the final rename is atomic. */
function openScratch(path: string): Database.Database {
  removeDatabase(path);
  const db = new Database(path);
  db.pragma("journal_mode = OFF");
  db.pragma("synchronous = OFF");
  db.pragma("cache_size = -8192");
  db.pragma("temp_store = FILE");
  return db;
}

function removeDatabase(path: string): void {
  for (const suffix of ["", "-journal", "-wal", "-shm"]) rmSync(path + suffix, { force: true });
}

function sourceProblems(options: CompileOptions): string[] {
  if (!existsSync(options.sourceDir) || !statSync(options.sourceDir).isDirectory()) {
    return [`${options.sourceDir}: (root): source directory not found`];
  }
  if (Number.isNaN(options.compiledAt.getTime())) return ["(options): compiledAt: expected a valid date"];
  return [];
}

export async function compileSnapshot(options: CompileOptions): Promise<CompileResult> {
  const early = sourceProblems(options);
  if (early.length > 0) return { ok: false, problems: early };
  const progress = options.onProgress;
  const xSecret = options.xSecret === undefined || options.xSecret === "" ? undefined : options.xSecret;
  const stagingPath = `${options.outFile}.staging-${process.pid}`;
  const tmpPath = `${options.outFile}.tmp-${process.pid}`;
  let staging: Database.Database | undefined;
  let out: Database.Database | undefined;
  try {
    staging = openScratch(stagingPath);
    staging.exec(rawStagingDdl);
    await readSources(staging, { sourceDir: options.sourceDir, xSecret, onProgress: progress, useWorker: options.validateOnWorker });
    progress?.("checking references");
    staging.exec(`BEGIN; ${flattenSql} COMMIT;`);
    progress?.("sources staged");
    staging.exec("BEGIN");
    for (const check of crossRecordChecks) staging.exec(check);
    staging.exec("COMMIT");
    const problems = staging
      .prepare("SELECT printf('%s:%d: %s: %s', file, line, path, message) FROM problems ORDER BY file, line, seq")
      .pluck()
      .all() as string[];
    staging.close();
    staging = undefined;
    if (problems.length > 0) return { ok: false, problems };

    progress?.("writing snapshot");
    out = openScratch(tmpPath);
    registerSearchFunctions(out);
    out.exec(snapshotTables);
    out.prepare("ATTACH DATABASE ? AS stg").run(stagingPath);
    out.pragma("stg.journal_mode = OFF");
    out.pragma("stg.synchronous = OFF");
    out.pragma("stg.cache_size = -8192");
    out.exec("BEGIN");
    out.exec(eligibilitySql(options.compiledAt));
    progress?.("eligibility decided");
    out.exec(entityOutputSql);
    progress?.("entity tables written");
    out.exec(snapshotSql(options.compiledAt));
    progress?.("snapshots computed");
    out.exec(searchIndexSql);
    progress?.("search index built");
    const excluded = countExclusions(out, options.compiledAt);
    progress?.("exclusions counted");
    const entries = manifestEntries(out, {
      excluded,
      xHandleSearchKey: xSecret === undefined ? null : handleSearchKey(xSecret),
    });
    out.exec("COMMIT");
    out.exec("DETACH DATABASE stg");
    progress?.("hashing");
    const manifest = writeManifest(out, entries, contentHash(tmpPath, entries), options.compiledAt);
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
    staging?.close();
    out?.close();
    removeDatabase(stagingPath);
    removeDatabase(tmpPath);
  }
}
