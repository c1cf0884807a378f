// One `cei diff` in a process of its own, so that its peak RSS is its own:
//   node --import tsx bench/_diff-child.ts <old> <new>
// prints one JSON line: { wallMs, maxRssBytes, summary }.
import { diffSnapshots } from "../snapshot/diff.ts";

export interface DiffChildReport {
  /** Wall time of diffSnapshots itself (module loading excluded). */
  wallMs: number;
  /** process.resourceUsage().maxRSS at the end, in bytes. */
  maxRssBytes: number;
  summary: ReturnType<typeof diffSnapshots>["summary"];
}

const [oldFile, newFile] = process.argv.slice(2);
if (oldFile === undefined || newFile === undefined) throw new Error("usage: _diff-child.ts <old> <new>");
const started = performance.now();
const diff = diffSnapshots(oldFile, newFile);
const report: DiffChildReport = { wallMs: performance.now() - started, maxRssBytes: process.resourceUsage().maxRSS * 1024, summary: diff.summary };
process.stdout.write(JSON.stringify(report) + "\n");
