// `cei inspect`: print a compiled snapshot's manifest as JSON, with `fresh_until`: until when each
// precomputed snapshot may be served (its as_of plus its bound in server/policy.ts; null when it
// has no as_of or no bound). A missing file or one that is not a snapshot gets our own sentence
// (snapshot/_open-pair.ts), never SQLite's.
import type { Command } from "commander";
import { readSnapshotManifest, SnapshotDiffError } from "../snapshot/diff.ts";
import { precomputedFreshness } from "../snapshot/freshness.ts";

/** Throws SnapshotDiffError, whose message names the file, when `file` is missing or not a snapshot. */
export function inspectSnapshot(file: string): Record<string, unknown> {
  const manifest = readSnapshotManifest(file);
  const snapshots = (manifest.snapshots ?? {}) as Record<string, string | null>;
  const freshUntil = Object.fromEntries(Object.entries(precomputedFreshness(snapshots)).map(([name, f]) => [name, f.fresh_until]));
  return { ...manifest, fresh_until: freshUntil };
}

export function registerInspect(program: Command): void {
  program
    .command("inspect")
    .description(
      "Print the manifest of a compiled snapshot (versions, content hash, snapshots, row counts, exclusions) as JSON, " +
        "with fresh_until: until when each precomputed snapshot is fresh enough to be served.",
    )
    .argument("<file>", "compiled snapshot file")
    .action((file: string) => {
      try {
        process.stdout.write(JSON.stringify(inspectSnapshot(file), null, 2) + "\n");
      } catch (error) {
        const message = error instanceof SnapshotDiffError ? error.message : `${file}: unexpected error: ${(error as Error).message}`;
        process.stderr.write(`cei inspect: ${message}\n`);
        process.exitCode = 1;
      }
    });
}
