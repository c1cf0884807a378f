// Every entry of the source folder is accounted for (docs/source-format.md, "Files"): a family
// file, or a documented ignorable (README*, dotfiles such as .cei-x-secret, the output itself).
// Anything else is a problem naming the closest family file, and so is a missing family file: a
// family that is intentionally empty has an empty file, so that a lost or misnamed file is never
// read as an empty family. An entry with a family file's name is present whatever its type: that
// it is a regular file inside the folder is checked when it is opened (family-file.ts). The folder
// is read an entry at a time and its problems kept by kind (problem-report.ts), so that a folder
// of a million stray files costs neither memory nor a million lines of output.
import { opendirSync } from "node:fs";
import { resolve } from "node:path";
import { families } from "./families/index.ts";
import { ProblemCollector } from "./problem-report.ts";

export interface SourceFiles {
  /** The problems kept of each unknown entry and each missing family file (`file: (root): message`), and the others' count. */
  problems: ProblemCollector;
  /** No family file at all: the compile stops here. */
  empty: boolean;
}

const ignorable = (name: string): boolean => name.startsWith(".") || /^readme/i.test(name);

/** `keep`: the problems kept of each kind (problemsKept). */
export function sourceFiles(sourceDir: string, outFile: string, keep: number): SourceFiles {
  const known = new Set(families.map((f) => f.file));
  const present = new Set<string>();
  const problems = new ProblemCollector(keep);
  let dir;
  try {
    dir = opendirSync(sourceDir);
  } catch (error) {
    problems.add(sourceDir, "(root)", `the source folder cannot be read (${(error as NodeJS.ErrnoException).code ?? (error as Error).message})`);
    return { problems, empty: true };
  }
  try {
    for (let entry = dir.readSync(); entry !== null; entry = dir.readSync()) {
      const { name } = entry;
      if (known.has(name)) {
        present.add(name);
      } else if (!ignorable(name) && resolve(sourceDir, name) !== resolve(outFile)) {
        const shown = entry.isDirectory() ? `${name}/` : name;
        const closest = closestFamilyFile(name);
        const hint = closest === undefined
          ? `the compiler reads only ${families.map((f) => f.file).join(", ")} (README* and dotfiles are ignored)`
          : `did you mean ${closest}?`;
        problems.add(shown, "(root)", `not a family file, so not read: ${hint}`);
      }
    }
  } finally {
    dir.closeSync();
  }
  if (present.size === 0) {
    problems.add(sourceDir, "(root)", `the source folder holds no family file (${families.map((f) => f.file).join(", ")})`);
    return { problems, empty: true };
  }
  for (const { file } of families) {
    if (!present.has(file)) problems.add(file, "(root)", `missing: if the family is intentionally empty, create an empty ${file}`);
  }
  return { problems, empty: false };
}

/**
 * The family file whose name is closest to `name` (case ignored): by edit distance between the
 * names before their first dot, so that `Stocks.jsonl`, `projetcs.jsonl`, `projects.json` and
 * `projects.jsonl.bak` all find theirs; undefined when none is within a quarter of its length.
 */
export function closestFamilyFile(name: string): string | undefined {
  const stem = name.toLowerCase().split(".")[0]!;
  let best: { file: string; distance: number } | undefined;
  for (const { file } of families) {
    const familyStem = file.split(".")[0]!;
    const limit = Math.max(1, Math.floor(familyStem.length / 4));
    // The distance is at least the difference in length: most names need no table at all.
    if (Math.abs(stem.length - familyStem.length) > limit) continue;
    const distance = editDistance(stem, familyStem);
    if (distance <= limit && (best === undefined || distance < best.distance)) best = { file, distance };
  }
  return best?.file;
}

/** Levenshtein distance, with a transposition of two neighbours counted as one edit. */
function editDistance(a: string, b: string): number {
  const d = Array.from({ length: a.length + 1 }, (_, i) => Array.from({ length: b.length + 1 }, (_, j) => (i === 0 ? j : j === 0 ? i : 0)));
  for (let i = 1; i <= a.length; i++) {
    for (let j = 1; j <= b.length; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      d[i]![j] = Math.min(d[i - 1]![j]! + 1, d[i]![j - 1]! + 1, d[i - 1]![j - 1]! + cost);
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1]) d[i]![j] = Math.min(d[i]![j]!, d[i - 2]![j - 2]! + 1);
    }
  }
  return d[a.length]![b.length]!;
}
