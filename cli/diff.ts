// `cei diff <old> <new>`: what a new snapshot changes, for reviewers. Exit codes as diff(1):
// 0 no differences, 1 differences, 2 trouble (a file missing or not a snapshot, or two format versions).
import type { Command } from "commander";
import { diffSnapshots, SnapshotDiffError, type SnapshotDiff } from "../snapshot/diff.ts";
import { formatDiff, summariseDiff } from "../snapshot/text.ts";

interface DiffOptions { json?: boolean; summary?: boolean }

export function registerDiff(program: Command): void {
  program
    .command("diff")
    .description("Show what a new snapshot changes: records per family, precomputed snapshot entries, manifest. Exit 0 same, 1 different, 2 trouble.")
    .argument("<old>", "the snapshot in service (or the previous one)")
    .argument("<new>", "the snapshot to review")
    .option("--json", "print the difference as JSON (shape: docs/diff.md)")
    .option("--summary", "print the counts only")
    .action((oldFile: string, newFile: string, options: DiffOptions) => {
      let diff: SnapshotDiff;
      try {
        diff = diffSnapshots(oldFile, newFile);
      } catch (error) {
        const message = error instanceof SnapshotDiffError ? error.message : `unexpected error: ${(error as Error).message}`;
        process.stderr.write(`cei diff: ${message}\n`);
        process.exitCode = 2;
        return;
      }
      // Before printing, so that a reader that stops early still sees the status (main.ts).
      process.exitCode = diff.identical ? 0 : 1;
      const colour = process.stdout.isTTY === true && (process.env.NO_COLOR ?? "") === "";
      if (options.json) {
        const shown = options.summary ? { old: diff.old, new: diff.new, identical: diff.identical, summary: diff.summary } : diff;
        process.stdout.write(JSON.stringify(shown, null, 2) + "\n");
      } else {
        process.stdout.write(options.summary ? summariseDiff(diff, { colour }) : formatDiff(diff, { colour }));
      }
    });
}
