// Curated text may not hold C0 control characters (prose keeps tab and line feed) nor the bidi
// overrides and isolates that reorder what a reader sees: each is a file:line problem.
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, expect, test } from "vitest";
import { compileSnapshot } from "../../compiler/compile.ts";
import { writeSources } from "../_support/sources.ts";

const dir = mkdtempSync(join(tmpdir(), "cei-hidden-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const fund = (id: string, name: string) =>
  JSON.stringify({ id, slug: id.replace("_", "-"), name, fund_type: "vc", score: 1, score_updated_at: "2026-03-01T00:00:00Z" });
const story = (n: number, summary: string) =>
  JSON.stringify({
    id: `story:1111111${n}-1111-4111-8111-111111111111`, title: "A title", summary, published_at: "2026-03-01T00:00:00Z",
    sentiment: "neutral", language: "en", curated: true,
  });

test("control and bidi characters in curated text are problems with file:line; prose keeps tab and newline", async () => {
  writeSources(dir, { "funds.jsonl": [
    fund("fund_a", "Plain Fund"),
    fund("fund_b", "Bell\u0007Fund"),
    fund("fund_c", "Evil\u202Ednuf"),
    fund("fund_d", "Tab\tName"),
    fund("fund_e", "Isolate \u2066x\u2069"),
  ].join("\n") + "\n",
  "news.jsonl": [story(1, "Line one.\n\tLine two."), story(2, "Nul\u0000here"), story(3, "Carriage\rreturn")].join("\n") + "\n" });
  const result = await compileSnapshot({ sourceDir: dir, outFile: join(dir, "s.db"), compiledAt: new Date("2026-03-01T12:00:00Z") });
  expect(result).toEqual({
    ok: false,
    problems: [
      'funds.jsonl:2: name: expected text without control characters: "Bell\\u0007Fund" has U+0007 at character 5',
      'funds.jsonl:3: name: expected text without bidirectional override or isolate characters: "Evil\\u202ednuf" has U+202E at character 5',
      'funds.jsonl:4: name: expected text without control characters: "Tab\\tName" has U+0009 at character 4',
      'funds.jsonl:5: name: expected text without bidirectional override or isolate characters: "Isolate \\u2066x\\u2069" has U+2066 at character 9',
      'news.jsonl:2: summary: expected text without control characters: "Nul\\u0000here" has U+0000 at character 4',
      'news.jsonl:3: summary: expected text without control characters: "Carriage\\rreturn" has U+000D at character 9',
    ],
  });
});
