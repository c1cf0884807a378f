// `cei inspect`: print a compiled snapshot's manifest as JSON.
import type { Command } from "commander";
import { readManifest } from "../compiler/manifest.ts";

export function registerInspect(program: Command): void {
  program
    .command("inspect")
    .description("Print the manifest of a compiled snapshot (versions, content hash, snapshots, row counts, exclusions) as JSON.")
    .argument("<file>", "compiled snapshot file")
    .action((file: string) => {
      try {
        process.stdout.write(JSON.stringify(readManifest(file), null, 2) + "\n");
      } catch (error) {
        process.stderr.write(`cei inspect: ${file}: ${(error as Error).message}\n`);
        process.exitCode = 1;
      }
    });
}
