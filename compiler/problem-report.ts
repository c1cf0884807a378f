// Bounded problem output (docs/source-format.md, "Errors"): a compile lists at most `maxProblems`
// problems of each kind, and counts every problem by kind. Nothing here grows with the number of
// problems: a limiter keeps a count per kind and tells its caller which problems to keep, and a
// report is built from the kept problems and the counts.
import { families } from "./families/index.ts";

/** Problems listed per kind unless `--max-problems` says otherwise. */
export const MAX_PROBLEMS_PER_KIND = 20;
/** Locations the summary gives for each kind: the kind's first problems, always kept. */
export const SUMMARY_LOCATIONS = 3;
/**
 * Kinds a limiter counts one by one. A kind comes from a schema rule or a check, so real sources
 * have a few dozen at most; past this many, a record's own field names must be making them up (a
 * repeated key deep inside an unknown field), and further kinds are counted together.
 */
export const MAX_KINDS = 200;
/** The kind that problems of kinds beyond MAX_KINDS are counted as. */
export const OTHER_KINDS = "(kinds beyond the first 200, counted together)";

const familyFileNames = new Set(families.map((f) => f.file));
const QUOTED = /"(?:[^"\\]|\\.)*"/g;
const CODE_POINT = /U\+[0-9A-F]+|0x[0-9A-F]+/g;
// What a message adds after a quoted character (`" " (a space)`, `"₮" (U+20AE)`): part of the value.
const CHARACTER_NOTE = /"…" \((?:a space|U\+…)\)/g;
// A list of line numbers (`3, 17, 45`, perhaps ending `, …`) is one value, whatever its length.
const NUMBER_LIST = /(?<![\w.+-])\d+(?:, \d+)+(?:, …)?(?!\w)/g;
// Numbers, dates and date-times (`2026-03-04`, `2026-03-01T11:55:00.000Z`) but not the 8 of UTF-8.
const NUMBER = /(?<![\w.+-])-?\d+(?:[.:-]\d+)*(?:T[\d:.]+Z?)?(?!\w)/g;

/**
 * A problem's kind: its file (a family file by name; every other file, such as a stray one, as
 * `*`), its path without list indexes, and its message with the offending values (quoted
 * values, numbers, dates, code points) replaced by `…`. So `projects.jsonl:7: funding[2].id:
 * duplicate id "r1" (first at funding[0])` is of kind `projects.jsonl: funding[].id: duplicate
 * id "…" (first at funding[…])`.
 */
export function problemKind(file: string, path: string, message: string): string {
  const shownFile = familyFileNames.has(file) ? file : "*";
  return `${shownFile}: ${valuesStripped(path.replace(/\[\d+\]/g, "[]"))}: ${valuesStripped(message)}`;
}

function valuesStripped(text: string): string {
  return text.replace(QUOTED, '"…"').replace(CODE_POINT, (code) => `${code.slice(0, 2)}…`).replace(CHARACTER_NOTE, '"…"')
    .replace(NUMBER_LIST, "…").replace(NUMBER, "…");
}

/** How many problems to keep of each kind: those listed, and at least the summary's first locations. */
export const problemsKept = (maxProblems: number): number => Math.max(maxProblems, SUMMARY_LOCATIONS);

/** Problems whose kinds a limiter remembers: most repeat one message (`id: required`) word for word. */
const KIND_MEMO_SIZE = 10_000;

/** Counts problems by kind and admits the first `keep` of each; the rest are only counted. */
export class ProblemLimiter {
  readonly #keep: number;
  readonly #counts = new Map<string, number>();
  /** Kinds by file, path and message: no key is built, and constant messages hash once. */
  readonly #kinds = new Map<string, Map<string, Map<string, string>>>();
  #remembered = 0;
  #other = 0;

  constructor(keep: number) {
    this.#keep = keep;
  }

  #kindOf(file: string, path: string, message: string): string {
    let byPath = this.#kinds.get(file);
    if (byPath === undefined) this.#kinds.set(file, (byPath = new Map()));
    let byMessage = byPath.get(path);
    if (byMessage === undefined) byPath.set(path, (byMessage = new Map()));
    let kind = byMessage.get(message);
    if (kind === undefined) {
      kind = problemKind(file, path, message);
      if (++this.#remembered > KIND_MEMO_SIZE) {
        this.#kinds.clear();
        this.#remembered = 0;
      } else {
        byMessage.set(message, kind);
      }
    }
    return kind;
  }

  /** Counts the problem; true when it is among the first `keep` of its kind, to be kept. */
  admit(file: string, path: string, message: string): boolean {
    const kind = this.#kindOf(file, path, message);
    const count = this.#counts.get(kind);
    if (count === undefined && this.#counts.size >= MAX_KINDS) {
      this.#other++;
      return false;
    }
    this.#counts.set(kind, (count ?? 0) + 1);
    return (count ?? 0) < this.#keep;
  }

  /** The problems counted but not admitted, by kind. */
  overflow(): Array<[kind: string, count: number]> {
    const out: Array<[string, number]> = [];
    for (const [kind, count] of this.#counts) if (count > this.#keep) out.push([kind, count - this.#keep]);
    if (this.#other > 0) out.push([OTHER_KINDS, this.#other]);
    return out;
  }
}

/** A kept problem: its kind, its `file:line: path: message` text and its `file:line` (`file` for a whole file). */
export interface KeptProblem {
  kind: string;
  text: string;
  location: string;
}

/** Every kind with its count and first locations, in the order of each kind's first problem. */
export interface ProblemSummary {
  total: number;
  /** Problems listed per kind. */
  maxProblems: number;
  kinds: Array<{ kind: string; count: number; first: string[] }>;
}

/**
 * The problems to list (at most `maxProblems` of each kind, in input order) from the kept ones
 * (in input order), and, when any problem was left out, the summary. `uncounted` holds the
 * problems of each kind that were counted but not kept.
 */
export function problemReport(kept: Iterable<KeptProblem>, uncounted: Iterable<[kind: string, count: number]>, maxProblems: number): { problems: string[]; summary?: ProblemSummary } {
  const kinds = new Map<string, { kind: string; count: number; first: string[] }>();
  const problems: string[] = [];
  let total = 0;
  for (const problem of kept) {
    let entry = kinds.get(problem.kind);
    if (entry === undefined) kinds.set(problem.kind, (entry = { kind: problem.kind, count: 0, first: [] }));
    if (entry.count < maxProblems) problems.push(problem.text);
    if (entry.first.length < SUMMARY_LOCATIONS) entry.first.push(problem.location);
    entry.count++;
    total++;
  }
  for (const [kind, count] of uncounted) {
    let entry = kinds.get(kind);
    if (entry === undefined) kinds.set(kind, (entry = { kind, count: 0, first: [] }));
    entry.count += count;
    total += count;
  }
  if (problems.length === total) return { problems };
  return { problems, summary: { total, maxProblems, kinds: [...kinds.values()] } };
}

/** The problems as the limiter keeps and a report lists them, for problems found outside SQL (source-files.ts). */
export class ProblemCollector {
  readonly #limiter: ProblemLimiter;
  readonly kept: Array<{ file: string; path: string; message: string }> = [];

  constructor(keep: number) {
    this.#limiter = new ProblemLimiter(keep);
  }

  add(file: string, path: string, message: string): void {
    if (this.#limiter.admit(file, path, message)) this.kept.push({ file, path, message });
  }

  overflow(): Array<[kind: string, count: number]> {
    return this.#limiter.overflow();
  }
}

/** The summary as `cei compile` prints it: one line per kind, its count, kind and first locations. */
export function summaryText(summary: ProblemSummary): string {
  const width = String(Math.max(...summary.kinds.map((k) => k.count))).length;
  const lines = summary.kinds.map((k) => `  ${String(k.count).padStart(width)}  ${k.kind}${k.first.length > 0 ? `  (first: ${k.first.join(", ")})` : ""}`);
  return `problems by kind (at most ${summary.maxProblems} of each listed above; --max-problems <n> lists more):\n${lines.join("\n")}\n`;
}
