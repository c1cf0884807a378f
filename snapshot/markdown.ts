// The diff as GitHub-flavoured Markdown, for a pull request comment: the two snapshots named by
// content hash and reference time, a summary table, the warnings, the significant changes, then
// everything else folded in <details>. Bounded for a comment: at most `maxRows` change rows,
// shared fairly between sections (warnings first, then significant, then folded), each section
// cut short ending with an "… N more" row, and never more than MAX_CHARS characters, under
// GitHub's limit for a comment. Every curated value is shown in a code span, so that no name can
// become a link, a mention or HTML.
import { reviewSections, type Cell, type ChangeRow, type Section } from "./_review-rows.ts";
import type { SnapshotDiff, SnapshotSide, Warning } from "./diff.ts";

export interface MarkdownOptions {
  /** Change rows listed in all; the rest are counted. */
  maxRows: number;
  /** The counts and warnings only. */
  summaryOnly?: boolean;
}

export const DEFAULT_MAX_ROWS = 200;
/** Longer values are cut, with "…": a row stays readable. */
const MAX_VALUE_CHARS = 60;
/** A document never longer than this: GitHub refuses a comment over 65,536 characters, and the CI recipe adds a line. */
export const MAX_CHARS = 60_000;

export function formatMarkdown(diff: SnapshotDiff, options: MarkdownOptions = { maxRows: DEFAULT_MAX_ROWS }): string {
  const sections = diff.identical ? [] : reviewSections(diff);
  const part = (significant: boolean) => sections.map((s) => ({ name: s.name, rows: s.rows.filter((r) => r.significant === significant) })).filter((s) => s.rows.length > 0);
  const parts: Parts = { shown: part(true), folded: part(false) };
  let maxRows = options.maxRows;
  let markdown = _render(diff, parts, maxRows, options.summaryOnly === true);
  // Long values fill rows unevenly: list fewer rows until the document fits a comment.
  while (markdown.length > MAX_CHARS && maxRows > 0) {
    maxRows = Math.min(maxRows - 1, Math.floor((maxRows * MAX_CHARS) / markdown.length));
    markdown = _render(diff, parts, maxRows, options.summaryOnly === true);
  }
  return markdown;
}

/** The sections' significant rows, and the others. */
interface Parts { shown: Section[]; folded: Section[] }

function _render(diff: SnapshotDiff, { shown, folded }: Parts, maxRows: number, summaryOnly: boolean): string {
  const out = ["### cei diff", "", "| | snapshot | content hash | reference time |", "| --- | --- | --- | --- |", _side("old", diff.old), _side("new", diff.new), ""];
  if (diff.identical) return [...out, "**No differences.**", ""].join("\n");
  const [shownRows, foldedRows] = [shown, folded].map((p) => p.reduce((n, s) => n + s.rows.length, 0)) as [number, number];
  const warnings = diff.warnings.length;
  out.push([warnings === 0 ? "No warnings" : `**⚠️ ${_count(warnings, "warning")}**`, _count(shownRows, "significant change"), ...(foldedRows === 0 ? [] : [`${foldedRows} folded`])].join(" · "), "");
  out.push(..._summaryTable(diff), "");
  // Warnings first, then the significant rows, then the folded ones, while rows are left.
  let budget = maxRows;
  if (warnings > 0) {
    const listed = Math.min(warnings, budget);
    budget -= listed;
    out.push("#### ⚠️ Warnings", "", "| rule | family or snapshot | id | change | why |", "| --- | --- | --- | --- | --- |");
    out.push(...diff.warnings.slice(0, listed).map(_warningRow), ...(listed < warnings ? [_more(warnings - listed, 5)] : []), "");
  }
  if (summaryOnly) return out.join("\n");
  const shownAllowance = _allot(shown.map((s) => s.rows.length), budget);
  budget -= shownAllowance.reduce((a, b) => a + b, 0);
  out.push("#### Significant changes", "");
  if (shown.length === 0) out.push("None: every change is derived or observed (below).", "");
  shown.forEach((section, i) => out.push(..._sectionTable(section, shownAllowance[i]!)));
  if (folded.length > 0) {
    const foldedAllowance = _allot(folded.map((s) => s.rows.length), budget);
    out.push("<details>", `<summary>${_count(foldedRows, "folded change")}: derived counts, observed values, ranking moves, as_of times, the manifest</summary>`, "");
    folded.forEach((section, i) => out.push(..._sectionTable(section, foldedAllowance[i]!)));
    out.push("</details>", "");
  }
  return out.join("\n");
}

function _side(which: string, side: SnapshotSide): string {
  const hash = side.content_hash === null ? "none" : _code(side.content_hash.slice(0, 12));
  return `| ${which} | ${_code(side.file)} | ${hash} | ${side.reference_time ?? "none"} |`;
}

function _summaryTable(diff: SnapshotDiff): string[] {
  const lines = ["| family or snapshot | added | removed | changed | moved |", "| --- | ---: | ---: | ---: | ---: |"];
  const n = (count: number) => (count === 0 ? "" : String(count));
  for (const [name, c] of Object.entries(diff.summary.families)) {
    if (c.added + c.removed + c.changed > 0) lines.push(_tableRow([name, n(c.added), n(c.removed), n(c.changed), ""]));
  }
  for (const [name, c] of Object.entries(diff.summary.snapshots)) {
    const changed = [n(c.changed), c.as_of_changed ? "as_of" : ""].filter((s) => s !== "").join(" + ");
    lines.push(_tableRow([name, n(c.entered), n(c.left), changed, n(c.moved)]));
  }
  // As in the rows: the content hashes head the document.
  const manifest = diff.manifest.filter((c) => c.key !== "content_hash").length;
  if (manifest > 0) lines.push(_tableRow(["manifest", "", "", String(manifest), ""]));
  return lines;
}

function _warningRow(w: Warning): string {
  const change = Object.entries(w.fields).map(([field, c]) => `${_code(field)} ${_cell({ value: c.old })} → ${_cell({ value: c.new })}`).join("<br>");
  return _tableRow([_code(w.rule), w.subject, w.id === null ? "" : _code(w.id), change, w.detail]);
}

function _sectionTable(section: Section, allowance: number): string[] {
  if (allowance === 0) return [`**${section.name}**: … ${section.rows.length} more`, ""];
  const lines = [`**${section.name}**`, "", "| | id | field | old | new |", "| --- | --- | --- | --- | --- |"];
  lines.push(...section.rows.slice(0, allowance).map(_changeRow));
  if (allowance < section.rows.length) lines.push(_more(section.rows.length - allowance, 5));
  return [...lines, ""];
}

function _changeRow(row: ChangeRow): string {
  return _tableRow([row.mark, row.id === "" ? "" : _code(row.id), row.field === "" ? "" : _code(row.field), _cell(row.old), _cell(row.new)]);
}

/** The row that counts what a table leaves out. */
function _more(count: number, columns: number): string {
  return _tableRow(["…", `${count} more`, ...Array<string>(columns - 2).fill("")]);
}

function _tableRow(cells: string[]): string {
  return `| ${cells.join(" | ")} |`;
}

/** A value as the API serves it: dates and date-times as they are, strings quoted, lists as JSON. */
function _cell(cell: Cell | undefined): string {
  if (cell === undefined || _isEmptyObject(cell.value)) return "";
  const { value, type } = cell;
  const dated = (type === "date" || type === "datetime") && typeof value === "string";
  return _code(dated ? value : JSON.stringify(value ?? null));
}

const _isEmptyObject = (value: unknown) => value !== null && typeof value === "object" && !Array.isArray(value) && Object.keys(value).length === 0;

/**
 * A code span that shows `text` literally inside a table cell: control characters dropped, cut at
 * MAX_VALUE_CHARS, pipes escaped (GFM splits cells before code spans), fenced by more backticks
 * than any run inside it.
 */
function _code(text: string): string {
  let shown = text.replace(/[\u0000-\u001f\u007f]/g, "");
  if (shown.length > MAX_VALUE_CHARS) shown = `${shown.slice(0, MAX_VALUE_CHARS - 1)}…`;
  shown = shown.replaceAll("|", "\\|");
  const fence = "`".repeat(Math.max(0, ...[...shown.matchAll(/`+/g)].map((m) => m[0].length)) + 1);
  const pad = shown.startsWith("`") || shown.endsWith("`") ? " " : "";
  return `${fence}${pad}${shown}${pad}${fence}`;
}

/**
 * Shares `budget` rows between sections of these sizes: every section gets the same allowance,
 * or its size when smaller (water-filling), and the rows left over go to the first sections.
 */
function _allot(sizes: number[], budget: number): number[] {
  const sorted = [...sizes].sort((a, b) => a - b);
  let level = 0;
  let left = budget;
  for (let i = 0; i < sorted.length; i++) {
    const rise = Math.min(sorted[i]! - level, Math.floor(left / (sorted.length - i)));
    level += rise;
    left -= rise * (sorted.length - i);
    if (sorted[i]! > level) break;
  }
  const allowance = sizes.map((size) => Math.min(size, level));
  left = budget - allowance.reduce((a, b) => a + b, 0);
  for (let i = 0; i < sizes.length && left > 0; i++) {
    if (allowance[i]! < sizes[i]!) {
      allowance[i]! += 1;
      left--;
    }
  }
  return allowance;
}

function _count(n: number, word: string): string {
  return `${n} ${word}${n === 1 ? "" : "s"}`;
}
