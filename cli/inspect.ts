// `cei inspect`: print a compiled snapshot's manifest as JSON, with `fresh_until`: until when each
// precomputed snapshot may be served (its as_of plus its bound in server/policy.ts; null when it
// has no as_of or no bound).
import type { Command } from "commander";
import { readManifest } from "../compiler/manifest.ts";
import { precomputedFreshness } from "../server/freshness.ts";

export function inspectSnapshot(file: string): Record<string, unknown> {
  const manifest = readManifest(file);
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
        process.stderr.write(`cei inspect: ${file}: ${(error as Error).message}\n`);
        process.exitCode = 1;
      }
    });
}
