// `cei diff <old> <new>`: what a new snapshot changes, for reviewers. Exit codes as diff(1):
// 0 no differences, 1 differences, 2 trouble (a file missing or not a snapshot, two format
// versions, a bad option). With --fail-on, 1 means that a chosen kind of change occurred, and 0
// that none did, differences or not: what a CI job needs to pass or fail on.
import { InvalidArgumentError, Option, type Command } from "commander";
import { diffSnapshots, SnapshotDiffError, type SnapshotDiff } from "../snapshot/diff.ts";
import { DEFAULT_MAX_ROWS, formatMarkdown } from "../snapshot/markdown.ts";
import { formatDiff, summariseDiff } from "../snapshot/text.ts";
import { WARNING_RULES } from "../snapshot/warnings.ts";

const FORMATS = ["text", "json", "markdown"] as const;
type Format = (typeof FORMATS)[number];

/** `removed`: a family lost a record; `warnings`: any warning; a rule's id: that warning. */
export const FAIL_ON_KINDS = ["removed", "warnings", ...WARNING_RULES] as const;
type FailOnKind = (typeof FAIL_ON_KINDS)[number];

interface DiffOptions { format: Format; json?: boolean; summary?: boolean; maxRows: number; failOn?: FailOnKind[] }

function parseFailOn(value: string): FailOnKind[] {
  const kinds = value.split(",").map((kind) => kind.trim()).filter((kind) => kind !== "");
  const unknown = kinds.filter((kind) => !(FAIL_ON_KINDS as readonly string[]).includes(kind));
  if (kinds.length === 0 || unknown.length > 0) throw new InvalidArgumentError(`expected a comma-separated list of ${FAIL_ON_KINDS.join(", ")}${unknown.length > 0 ? `; unknown: ${unknown.join(", ")}` : ""}`);
  return kinds as FailOnKind[];
}

function parseMaxRows(value: string): number {
  const n = Number(value);
  if (!/^\d+$/.test(value) || !Number.isSafeInteger(n) || n < 1) throw new InvalidArgumentError("expected a whole number >= 1");
  return n;
}

/** Why the diff fails under --fail-on: one phrase per chosen kind that occurred. */
function failures(diff: SnapshotDiff, kinds: readonly FailOnKind[]): string[] {
  const reasons: string[] = [];
  for (const kind of new Set(kinds)) {
    if (kind === "removed") {
      const removed = Object.values(diff.families).reduce((n, f) => n + f.removed.length, 0);
      if (removed > 0) reasons.push(`removed: ${removed} record${removed === 1 ? "" : "s"} removed`);
    } else {
      const count = diff.warnings.filter((w) => kind === "warnings" || w.rule === kind).length;
      if (count > 0) reasons.push(`${kind}: ${count} warning${count === 1 ? "" : "s"}`);
    }
  }
  return reasons;
}

export function registerDiff(program: Command): void {
  program
    .command("diff")
    .description("Show what a new snapshot changes: records per family, precomputed snapshot entries, manifest, sanity warnings. Exit 0 same, 1 different, 2 trouble.")
    .argument("<old>", "the snapshot in service (or the previous one)")
    .argument("<new>", "the snapshot to review")
    .addOption(new Option("--format <format>", "text, json (shape: docs/diff.md) or markdown (for a pull request comment)").choices(FORMATS).default("text"))
    .addOption(new Option("--json", "the same as --format json").conflicts("format"))
    .option("--summary", "print the counts (and warnings) only")
    .option("--max-rows <n>", "markdown: change rows listed in all, the rest counted in '… N more' rows", parseMaxRows, DEFAULT_MAX_ROWS)
    .option("--fail-on <kinds>", `exit 1 only when one of these occurs, else 0: ${FAIL_ON_KINDS.join(", ")} (comma-separated)`, parseFailOn)
    .addHelpText("after", "\nWarnings never change the exit code by themselves; --fail-on chooses what does (docs/diff.md, \"Warnings\").")
    // A usage error is trouble, as in diff(1): exit 2, not commander's 1.
    .exitOverride((error) => process.exit(error.exitCode === 0 ? 0 : 2))
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
      const reasons = options.failOn === undefined ? [] : failures(diff, options.failOn);
      // Before printing, so that a reader that stops early still sees the status (main.ts).
      process.exitCode = options.failOn === undefined ? (diff.identical ? 0 : 1) : reasons.length > 0 ? 1 : 0;
      const format: Format = options.json ? "json" : options.format;
      const colour = process.stdout.isTTY === true && (process.env.NO_COLOR ?? "") === "";
      if (format === "json") {
        const shown = options.summary ? { old: diff.old, new: diff.new, identical: diff.identical, summary: diff.summary, warnings: diff.warnings } : diff;
        process.stdout.write(JSON.stringify(shown, null, 2) + "\n");
      } else if (format === "markdown") {
        process.stdout.write(formatMarkdown(diff, { maxRows: options.maxRows, summaryOnly: options.summary === true }));
      } else {
        process.stdout.write(options.summary ? summariseDiff(diff, { colour }) : formatDiff(diff, { colour }));
      }
      if (reasons.length > 0) process.stderr.write(`cei diff: --fail-on ${reasons.join("; ")}\n`);
    });
}
