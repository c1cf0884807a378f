// Steps 1-2: stage every family file (stage-families.ts). Large inputs are staged in parallel:
// the families are shared out between this thread and worker threads, each writing to a staging
// database of its own, which compile.ts then attaches, so that every staging table keeps its
// unqualified name. Small inputs are staged here, in the main staging database.
import { existsSync, statSync } from "node:fs";
import { availableParallelism } from "node:os";
import { join } from "node:path";
import type Database from "better-sqlite3";
import type { FamilyDefinition } from "./families/define.ts";
import { families } from "./families/index.ts";
import { stageFamilies, type StageOptions } from "./stage-families.ts";
import { CompilerWorker } from "./workers.ts";

export interface ReadOptions extends StageOptions {
  /** Threads that stage families, this one included (see stagingThreads). */
  threads: number;
}

/** Below this much input, starting a worker costs more than it saves. */
const PARALLEL_THRESHOLD_BYTES = 4 * 1024 * 1024;
const MAX_THREADS = 4;

const fileBytes = (sourceDir: string, file: string): number => {
  const path = join(sourceDir, file);
  return existsSync(path) ? statSync(path).size : 0;
};

/** Threads to stage with: `threads` if given (at most 4), else one per core (at most 4) for large inputs and 1 for small ones. */
export function stagingThreads(sourceDir: string, threads: number | undefined): number {
  if (threads !== undefined) return Math.max(1, Math.min(MAX_THREADS, Math.floor(threads)));
  const bytes = families.reduce((sum, f) => sum + fileBytes(sourceDir, f.file), 0);
  return bytes < PARALLEL_THRESHOLD_BYTES ? 1 : Math.max(1, Math.min(MAX_THREADS, availableParallelism()));
}

/**
 * Shares the families out between `threads` lanes, largest file first, each to the lane with the
 * fewest bytes so far (lane 0, this thread, on ties). Lanes keep the families' file order.
 */
export function planLanes(sizes: ReadonlyMap<string, number>, threads: number): FamilyDefinition[][] {
  const lanes = Array.from({ length: threads }, () => ({ bytes: 0, families: [] as FamilyDefinition[] }));
  const bySize = [...families].sort((a, b) => (sizes.get(b.family) ?? 0) - (sizes.get(a.family) ?? 0));
  for (const family of bySize) {
    const lane = lanes.reduce((least, l) => (l.bytes < least.bytes ? l : least));
    lane.bytes += sizes.get(family.family) ?? 0;
    lane.families.push(family);
  }
  const order = (f: FamilyDefinition) => families.indexOf(f);
  return lanes.map((l) => l.families.sort((a, b) => order(a) - order(b))).filter((lane, i) => i === 0 || lane.length > 0);
}

const laneDatabasePath = (stagingPath: string, lane: number): string => `${stagingPath}-lane${lane}`;

/**
 * Stages every family. `db` is the main staging database (lane 0); `stagingPath` names the
 * databases of the other lanes. Returns their paths: each holds the staging tables of its families.
 */
export async function readSources(db: Database.Database, stagingPath: string, options: ReadOptions): Promise<string[]> {
  const sizes = new Map(families.map((f) => [f.family, fileBytes(options.sourceDir, f.file)]));
  const [inline, ...others] = planLanes(sizes, options.threads);
  const paths = others.map((_, i) => laneDatabasePath(stagingPath, i + 1));
  const workers = others.map((lane, i) => new CompilerWorker({
    kind: "stage",
    dbPath: paths[i]!,
    families: lane.map(({ family, file }) => ({ family, file })),
    sourceDir: options.sourceDir,
    xSecret: options.xSecret,
    keepProblems: options.keepProblems,
  }, options.onProgress));
  try {
    stageFamilies(db, inline!, options);
    await Promise.all(workers.map((w) => w.result));
  } finally {
    await Promise.all(workers.map((w) => w.close()));
  }
  return paths;
}
