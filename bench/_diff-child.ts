// One `cei diff` in a process of its own, so that its peak RSS is its own:
//   node --import tsx bench/_diff-child.ts <old> <new>
// prints one JSON line: { wallMs, markdownMs, markdownChars, maxRssBytes, summary }, where
// markdownMs is the Markdown rendering of the diff (cei diff --format markdown) after it.
import { diffSnapshots } from "../snapshot/diff.ts";
import { formatMarkdown } from "../snapshot/markdown.ts";

export interface DiffChildReport {
  /** Wall time of diffSnapshots itself (module loading excluded). */
  wallMs: number;
  /** Wall time of formatMarkdown on that diff, and the length of what it gave. */
  markdownMs: number;
  markdownChars: number;
  /** process.resourceUsage().maxRSS at the end, in bytes. */
  maxRssBytes: number;
  summary: ReturnType<typeof diffSnapshots>["summary"];
}

const [oldFile, newFile] = process.argv.slice(2);
if (oldFile === undefined || newFile === undefined) throw new Error("usage: _diff-child.ts <old> <new>");
const started = performance.now();
const diff = diffSnapshots(oldFile, newFile);
const diffed = performance.now();
const markdown = formatMarkdown(diff);
const report: DiffChildReport = {
  wallMs: diffed - started,
  markdownMs: performance.now() - diffed,
  markdownChars: markdown.length,
  maxRssBytes: process.resourceUsage().maxRSS * 1024,
  summary: diff.summary,
};
process.stdout.write(JSON.stringify(report) + "\n");
