// `cei inspect`: print a compiled snapshot's manifest as JSON, with what follows from it:
// `fresh_until`, until when each precomputed snapshot may be served (its as_of plus its bound in
// snapshot/freshness.ts; null when it has no as_of or no bound); `holds`, the families and
// precomputed snapshots its sources curate, and `not_offered`, the operations that curate none of
// their data and answer 404 as an unknown route would (decision 28); and `published`, per family,
// the records curated and written and the accepted fields never written. A missing file or one
// that is not a snapshot gets our own sentence (snapshot/_open-pair.ts), never SQLite's.
import type { Command } from "commander";
import { holdings } from "../snapshot/curated.ts";
import { readSnapshotManifest, SnapshotDiffError } from "../snapshot/diff.ts";
import { precomputedFreshness } from "../snapshot/freshness.ts";
import { publishedOf } from "../snapshot/published.ts";
import { isOffered } from "../server/policy.ts";
import { routes } from "../server/routes.ts";

/** Throws SnapshotDiffError, whose message names the file, when `file` is missing or not a snapshot. */
export function inspectSnapshot(file: string): Record<string, unknown> {
  const manifest = readSnapshotManifest(file);
  const snapshots = (manifest.snapshots ?? {}) as Record<string, string | null>;
  const freshUntil = Object.fromEntries(Object.entries(precomputedFreshness(snapshots)).map(([name, f]) => [name, f.fresh_until]));
  const curated = (manifest.curated ?? {}) as Record<string, number>;
  const notOffered = routes.filter((route) => !isOffered(route.operation, curated))
    .map((route) => ({ operation: route.operation, method: route.method, path: route.path.replace(/:(\w+)/g, "{$1}") }));
  return { ...manifest, fresh_until: freshUntil, holds: holdings(curated), not_offered: notOffered, published: publishedOf(manifest) };
}

export function registerInspect(program: Command): void {
  program
    .command("inspect")
    .description(
      "Print the manifest of a compiled snapshot (versions, content hash, snapshots, row counts, exclusions, what the sources curate) as JSON, " +
        "with fresh_until (until when each precomputed snapshot is fresh enough to be served), holds and not_offered (the families and " +
        "snapshots the sources curate, the operations they feed nothing to) and published (per family: records curated and written, " +
        "fields accepted and not published).",
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
