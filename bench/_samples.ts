// Generated inputs, cached under bench/out/ by scale: the sample's source files, and the snapshot
// compiled from them. A sample is reused while it is young enough that its data is still fresh
// when served (the live trending signals are up to 55 minutes old at --as-of and may be served
// for 2 hours), so a run never measures answers that went stale because the cache was old.
import { existsSync, mkdirSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { readManifest } from "../compiler/manifest.ts";
import { SNAPSHOT_FORMAT_VERSION } from "../snapshot/schema.ts";
import { writeSample } from "../data/sample.ts";
import { OUT_DIR } from "./_config.ts";
import { runCompileChild } from "./_children.ts";

/** A cached sample older than this is generated again. */
const SAMPLE_MAX_AGE_MS = 45 * 60_000;

export interface Sample {
  scale: number;
  dir: string;
  asOf: Date;
  /** Source lines (= records) over all files. */
  lines: number;
}

interface SampleMeta { scale: number; asOf: string; lines: number; files: Record<string, number> }

export function sampleDir(scale: number): string {
  return join(OUT_DIR, `sample-${scale}`);
}

export function snapshotFile(scale: number): string {
  return join(OUT_DIR, `snapshot-${scale}.db`);
}

export async function ensureSample(scale: number, log: (line: string) => void): Promise<Sample> {
  const dir = sampleDir(scale);
  const metaFile = join(dir, ".bench-meta.json");
  if (existsSync(metaFile)) {
    const meta = JSON.parse(readFileSync(metaFile, "utf8")) as SampleMeta;
    const age = Date.now() - Date.parse(meta.asOf);
    if (meta.scale === scale && age >= 0 && age < SAMPLE_MAX_AGE_MS) return { scale, dir, asOf: new Date(meta.asOf), lines: meta.lines };
  }
  rmSync(dir, { recursive: true, force: true });
  rmSync(snapshotFile(scale), { force: true });
  const asOf = new Date();
  const started = performance.now();
  const { files } = await writeSample({ outDir: dir, asOf, scale });
  const lines = Object.values(files).reduce((sum, n) => sum + n, 0);
  log(`  generated sample scale ${scale}: ${lines.toLocaleString("en-US")} lines in ${((performance.now() - started) / 1000).toFixed(1)} s`);
  // .bench-meta.json last (a dotfile: the compiler ignores it in a source folder): a sample interrupted half-way has none and is generated again.
  const meta: SampleMeta = { scale, asOf: asOf.toISOString(), lines, files };
  writeFileSync(metaFile, JSON.stringify(meta, null, 2));
  return { scale, dir, asOf, lines };
}

/**
 * The snapshot of a sample, compiled at the sample's --as-of. Sections other than `compile` reuse
 * the file the compile section wrote, or compile it here (unmeasured) when run alone.
 */
export async function ensureSnapshot(sample: Sample, log: (line: string) => void): Promise<string> {
  const file = snapshotFile(sample.scale);
  if (existsSync(file) && statSync(file).mtimeMs >= statSync(join(sample.dir, ".bench-meta.json")).mtimeMs && _isCurrentFormat(file)) return file;
  mkdirSync(OUT_DIR, { recursive: true });
  const result = await runCompileChild("compile", sample, file);
  log(`  compiled snapshot scale ${sample.scale} in ${(result.wallMs / 1000).toFixed(1)} s (for the sections that serve it)`);
  return file;
}

/** A snapshot cached by an older build is of another format, which `cei serve` refuses: compiled again. */
function _isCurrentFormat(file: string): boolean {
  try {
    return readManifest(file).format_version === SNAPSHOT_FORMAT_VERSION;
  } catch {
    return false;
  }
}
