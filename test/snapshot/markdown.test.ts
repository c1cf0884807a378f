// formatMarkdown on diffs built in memory: what no fixture holds, curated text that would break a
// table or become a mention or HTML, and a diff far larger than a comment can hold.
import { expect, test } from "vitest";
import type { FamilyDiff, RankingDiff, SnapshotDiff, Warning } from "../../snapshot/diff.ts";
import { DEFAULT_MAX_ROWS, formatMarkdown, MAX_CHARS } from "../../snapshot/markdown.ts";
import { familySpecs } from "../../snapshot/specs.ts";

/** GitHub refuses a comment body longer than this. */
const GITHUB_COMMENT_LIMIT = 65_536;

function diffOf(families: Record<string, FamilyDiff>, snapshots: Record<string, RankingDiff> = {}, warnings: Warning[] = []): SnapshotDiff {
  const side = (file: string) => ({ file, format_version: 4, content_hash: "ab".repeat(32), reference_time: "2026-03-01T12:00:00.000Z" });
  return {
    old: side("old.db"),
    new: side("new.db"),
    identical: false,
    summary: {
      families: Object.fromEntries(Object.entries(families).map(([name, f]) => [name, { added: f.added.length, removed: f.removed.length, changed: f.changed.length }])),
      snapshots: Object.fromEntries(Object.entries(snapshots).map(([name, s]) => [name, { entered: s.entered.length, left: s.left.length, moved: s.moved.length, changed: s.changed.length, as_of_changed: false }])),
      manifest_changes: 0,
      warnings: warnings.length,
    },
    manifest: [],
    families,
    snapshots,
    warnings,
  };
}

const cells = (row: string) => row.slice(1, -1).split(/(?<!\\)\|/);

test("curated text stays inside its cell and its code span: no split table, link, mention or HTML", () => {
  const hostile = "A|B `c` <img src=x onerror=alert(1)> @octocat [x](https://example.com)\nnext line";
  const markdown = formatMarkdown(diffOf({ projects: { added: [], removed: [], changed: [{ id: "proj_x|y", fields: { name: { old: "Plain", new: hostile } }, lists: {} }] } }));
  const row = markdown.split("\n").find((line) => line.startsWith("| ~ |"))!;
  expect(cells(row)).toHaveLength(5);
  expect(cells(row)[1]).toBe(" `proj_x\\|y` ");
  // A longer fence than the backticks inside, the pipe escaped, the newline kept as JSON's \n, cut at 60 characters.
  expect(cells(row)[4]).toBe(' ``"A\\|B `c` <img src=x onerror=alert(1)> @octocat [x](https://…`` ');
});

test("a diff far over a comment's size: at most --max-rows rows and MAX_CHARS characters, shared fairly, every row counted", () => {
  const long = "x".repeat(500);
  const families = Object.fromEntries(familySpecs.map((spec) => [spec.name, {
    added: Array.from({ length: 300 }, (_, i) => ({ id: `${spec.name}_added_${i}_${long}`, record: { [spec.label ?? "id"]: long } })),
    removed: [],
    changed: Array.from({ length: 500 }, (_, i) => ({ id: `${spec.name}_${i}_${long}`, fields: { [`${long}_a`]: { old: long, new: `${long}!` }, [`${long}_b`]: { old: 1, new: 2 } }, lists: {} })),
  }]));
  const snapshots = Object.fromEntries(Array.from({ length: 40 }, (_, day) => [`trending_entities/2026-01-${String(day + 1).padStart(2, "0")}`, {
    as_of: null, entries: { old: 200, new: 200 }, entered: [], left: [], changed: [], summary: {},
    moved: Array.from({ length: 200 }, (_, i) => ({ id: `project:p${i}_${long}`, old: i + 1, new: 200 - i, by: 2 * i - 199, displaced: true })),
  }]));
  const warnings = Array.from({ length: 20 }, (_, i): Warning => ({ rule: "renamed_and_reslugged", subject: "projects", id: `projects_${i}_${long}`, fields: { name: { old: long, new: long }, slug: { old: long, new: long } }, detail: "renamed and re-slugged in one step: links to the old slug break", message: "" }));
  const lines = formatMarkdown(diffOf(families, snapshots, warnings)).split("\n");
  expect(lines.join("\n").length).toBeLessThanOrEqual(MAX_CHARS);
  expect(MAX_CHARS).toBeLessThan(GITHUB_COMMENT_LIMIT);
  // Rows per section, warnings first: all 20 of them, then the significant sections.
  const shown = new Map<string, number>([["warnings", 0]]);
  for (const line of lines) {
    const section = /^\*\*([^*]+)\*\*(?::|$)/.exec(line)?.[1];
    if (section !== undefined) shown.set(section, 0);
    else if (/^\| ([-+~↑↓]|`renamed_and_reslugged`) \|/.test(line)) shown.set([...shown.keys()].pop()!, shown.get([...shown.keys()].pop()!)! + 1);
  }
  const total = [...shown.values()].reduce((a, b) => a + b, 0);
  expect(total).toBeLessThanOrEqual(DEFAULT_MAX_ROWS);
  expect(total).toBeGreaterThan(DEFAULT_MAX_ROWS / 2);
  expect(shown.get("warnings")).toBe(20);
  const perFamily = familySpecs.map((spec) => shown.get(spec.name)!);
  expect(Math.max(...perFamily) - Math.min(...perFamily)).toBeLessThanOrEqual(1);
  // Every row left out is counted: each family's 800 records (1,300 rows), 40 × 200 moves.
  const more = [...lines.join("\n").matchAll(/… (?:\| )?(\d+) more/g)].reduce((n, m) => n + Number(m[1]), 0);
  expect(more + total - 20).toBe(familySpecs.length * 1_300 + 40 * 200);
});
