// Each sanity warning on its own: fixtures/valid compiled by the real compiler, against the same
// sources with one edit that should trip exactly that rule (and a market of 66 tokens for the
// rank jump, which needs a ranking longer than its threshold). The Markdown of each diff is
// compared with test/snapshot/golden/warnings/<rule>.md (content hashes masked); rewrite them after
// an intended change with: CEI_UPDATE_GOLDEN=1 npx vitest run test/snapshot/warnings.test.ts
import { execFile } from "node:child_process";
import { cpSync, readFileSync, writeFileSync } from "node:fs";
import { basename, join } from "node:path";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import { beforeAll, expect, test } from "vitest";
import { compileSnapshot } from "../../compiler/compile.ts";
import { SHRINK_LIMIT } from "../../compiler/shrink.ts";
import { diffSnapshots, type SnapshotDiff } from "../../snapshot/diff.ts";
import { formatMarkdown } from "../../snapshot/markdown.ts";
import { WARNING_RULES, warningThresholds, type WarningRule } from "../../snapshot/warnings.ts";
import { FIXTURE_COMPILED_AT, FIXTURE_X_SECRET, fixtureDir } from "../_support/fixtures.ts";
import { testTempDir } from "../_support/temp.ts";

const REPO = fileURLToPath(new URL("../../", import.meta.url));
const GOLDEN = fileURLToPath(new URL("./golden/warnings/", import.meta.url));
const run = promisify(execFile);

type Edit = Record<string, Array<[string, string]>>;

/** One edit of fixtures/valid per rule: file → [text, replacement] pairs, each found exactly once. */
const edits: Record<Exclude<WarningRule, "rank_jump">, Edit> = {
  // ETH's price ×10 (also in the market's summary), and a TVL divided by 152.
  value_jump: {
    "tokens.jsonl": [['"price_usd": 3300, "market_cap_usd": 400000000000', '"price_usd": 33000, "market_cap_usd": 400000000000']],
    "projects.jsonl": [['{"date": "2026-02-28", "tvl_usd": 152500000.25', '{"date": "2026-02-28", "tvl_usd": 1000000']],
  },
  // The fund ranking turned upside down: only Cygnus, in the middle, keeps its place.
  reshuffle: {
    "funds.jsonl": [['"score": 92,', '"score": 50,'], ['"fund_borealis", "slug": "borealis-capital", "name": "Borealis Capital", "fund_type": "vc", "score": 88', '"fund_borealis", "slug": "borealis-capital", "name": "Borealis Capital", "fund_type": "vc", "score": 55'], ['"score": 75,', '"score": 89,'], ['"score": 60,', '"score": 90,']],
  },
  // One of five stocks deleted: -20%.
  shrink: { "stocks.jsonl": [['"crypto_angle": "mining", "ipo_date": "2024-06-03", "is_pre_ipo": false', '"crypto_angle": "mining", "ipo_date": "2024-06-03", "is_pre_ipo": false, "deleted": true']] },
  renamed_and_reslugged: { "projects.jsonl": [['"slug": "beacon-lend", "name": "Beacon Lend"', '"slug": "beacon-lending", "name": "Beacon Lending"']] },
  // Erin's one investment unverified: she is no longer a search candidate, so no key finds her.
  unsearchable: { "people.jsonl": [['"invested_at": "2025-03-03T00:00:00Z", "verified": true', '"invested_at": "2025-03-03T00:00:00Z", "verified": false']] },
};

/** 60 more tokens in the market, below the fixture's six; `risen` raises the last one to second place. */
function widerMarket(risen: boolean): Edit {
  const lines = Array.from({ length: 60 }, (_, i) => {
    const n = String(i + 1).padStart(2, "0");
    const cap = risen && i === 59 ? 500_000_000_000 : 800_000_000 - i * 10_000_000;
    return JSON.stringify({ id: `tok_gen_${n}`, slug: `generated-${n}`, symbol: `GEN${n}`, name: `Generated ${n}`, market: { observed_at: "2026-03-01T11:00:00Z", rank: 10 + i, price_usd: 1, market_cap_usd: cap, volume_24h_usd: 1_000_000, change_24h_pct: 0, change_7d_pct: 0 } });
  });
  return { "tokens.jsonl": [["\n{\"id\": \"tok_eth\"", `\n${lines.join("\n")}\n{"id": "tok_eth"`]] };
}

let work = "";
const files: Record<string, string> = {};

async function compileVariant(name: string, edit: Edit): Promise<string> {
  const sources = join(work, name);
  cpSync(fixtureDir("valid"), sources, { recursive: true });
  for (const [file, replacements] of Object.entries(edit)) {
    let text = readFileSync(join(sources, file), "utf8");
    for (const [from, to] of replacements) {
      if (text.split(from).length !== 2) throw new Error(`${file}: ${from} is not found exactly once`);
      text = text.replace(from, to);
    }
    writeFileSync(join(sources, file), text);
  }
  const outFile = join(work, `${name}.db`);
  const result = await compileSnapshot({ sourceDir: sources, outFile, compiledAt: FIXTURE_COMPILED_AT, xSecret: FIXTURE_X_SECRET });
  if (!result.ok) throw new Error(`${name} did not compile:\n${result.problems.join("\n")}`);
  return outFile;
}

beforeAll(async () => {
  work = testTempDir("cei-warnings-");
  files.valid = await compileVariant("valid", {});
  for (const [rule, edit] of Object.entries(edits)) files[rule] = await compileVariant(rule, edit);
  files.market = await compileVariant("market", widerMarket(false));
  files.rank_jump = await compileVariant("rank_jump", widerMarket(true));
});

/** The diff with short file names and its Markdown with the content hashes masked. */
function markdownOf(oldFile: string, newFile: string): { diff: SnapshotDiff; markdown: string } {
  const diff = diffSnapshots(oldFile, newFile);
  diff.old.file = basename(oldFile);
  diff.new.file = basename(newFile);
  return { diff, markdown: formatMarkdown(diff).replace(/`[0-9a-f]{12}`/g, "`<content hash>`") };
}

function expectGolden(name: string, actual: string): void {
  const file = join(GOLDEN, name);
  if (process.env.CEI_UPDATE_GOLDEN === "1") writeFileSync(file, actual);
  expect(actual).toBe(readFileSync(file, "utf8"));
}

test.each(WARNING_RULES)("%s: warns alone, with its threshold, first in the Markdown", (rule) => {
  const { diff, markdown } = markdownOf(rule === "rank_jump" ? files.market! : files.valid!, files[rule]!);
  expect(diff.warnings.length).toBeGreaterThan(0);
  expect(new Set(diff.warnings.map((w) => w.rule))).toEqual(new Set([rule]));
  expect(markdown.indexOf("#### ⚠️ Warnings")).toBeLessThan(markdown.indexOf("#### Significant changes"));
  expectGolden(`${rule}.md`, markdown);
});

test("the rules' subjects and figures: each warning names what it is about", () => {
  const of = (rule: WarningRule) => diffSnapshots(rule === "rank_jump" ? files.market! : files.valid!, files[rule]!).warnings.map((w) => [w.subject, w.id, w.detail]);
  expect(of("value_jump")).toEqual([
    ["projects", "proj_aurora", "×152.5 down, more than a factor of 5"],
    ["market", "tok_eth", "×10.0 up, more than a factor of 5"],
    ["market", "summary", "×10.0 up, more than a factor of 5"],
  ]);
  expect(of("rank_jump")).toEqual([["market", "tok_gen_60", "rose 64 positions, more than 50"]]);
  expect(of("reshuffle")).toEqual([["fund_rankings", null, "4 of 5 entries (80%) entered or were displaced, more than 50%"]]);
  expect(of("shrink")).toEqual([["stocks", null, "5 → 4 records (−20%), more than 5%"]]);
  expect(of("renamed_and_reslugged").map(([subject, id]) => [subject, id])).toEqual([["projects", "proj_beacon"]]);
  expect(of("unsearchable").map(([subject, id]) => [subject, id])).toEqual([["people", "person_erin"]]);
  // The shrink warning speaks before the compile's own guard refuses.
  expect(warningThresholds.shrinkShare).toBeLessThan(SHRINK_LIMIT);
});

test("none of the rules fires on the fixtures' ordinary change, nor on a snapshot against itself", () => {
  expect(diffSnapshots(files.valid!, files.valid!).warnings).toEqual([]);
  expect(diffSnapshots(files.market!, files.market!).warnings).toEqual([]);
});

/** `cei diff` in `work`, with short file names. */
const cei = (args: string[]) =>
  run(process.execPath, [join(REPO, "bin/cei.js"), "diff", ...args], { cwd: work }).then(
    (r) => ({ code: 0, stdout: r.stdout, stderr: r.stderr }),
    (e: { code: number; stdout: string; stderr: string }) => ({ code: e.code, stdout: e.stdout, stderr: e.stderr }),
  );

test("--fail-on: 1 when a chosen kind occurs, 0 when none does, differences or not", async () => {
  const [shrink, renamedOnly, warnings] = await Promise.all([
    cei(["--fail-on", "shrink,unsearchable", "--summary", "valid.db", "shrink.db"]),
    cei(["--fail-on", "shrink,removed", "--summary", "valid.db", "renamed_and_reslugged.db"]),
    cei(["--fail-on", "warnings", "--format", "markdown", "--summary", "valid.db", "unsearchable.db"]),
  ]);
  expect(shrink).toMatchObject({ code: 1, stderr: "cei diff: --fail-on shrink: 1 warning\n" });
  expect(renamedOnly).toMatchObject({ code: 0, stderr: "" });
  expect(warnings).toMatchObject({ code: 1, stderr: "cei diff: --fail-on warnings: 1 warning\n" });
  // The summary names the warning the exit code is about; the Markdown's summary ends with the warnings.
  expect(shrink.stdout).toContain("shrink: stocks: 5 → 4 records (−20%), more than 5%");
  expect(warnings.stdout.trimEnd().split("\n").pop()).toMatch(/^\| `unsearchable` \| people \| `person_erin` \|/);
});
