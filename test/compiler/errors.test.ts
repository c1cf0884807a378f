// Every error class: the exact `file:line: path: message` lines, sorted by file then line, and
// no output file; an earlier file at --out is left untouched.
import { existsSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { expect, test } from "vitest";
import { compileSnapshot } from "../../compiler/compile.ts";
import { FIXTURE_COMPILED_AT, FIXTURE_X_SECRET, fixtureDir } from "../_support/fixtures.ts";
import { testTempDir } from "../_support/temp.ts";

async function compileErrors(name: string, xSecret: string | undefined = FIXTURE_X_SECRET): Promise<{ problems: string[]; dir: string }> {
  const dir = testTempDir("cei-errors-");
  const outFile = join(dir, "snapshot.db");
  writeFileSync(outFile, "EARLIER SNAPSHOT");
  const result = await compileSnapshot({ sourceDir: fixtureDir(name), outFile, compiledAt: FIXTURE_COMPILED_AT, ...(xSecret ? { xSecret } : {}) });
  expect(result.ok).toBe(false);
  expect(readFileSync(outFile, "utf8")).toBe("EARLIER SNAPSHOT");
  expect(readdirSync(dir)).toEqual(["snapshot.db"]);
  return { problems: result.ok ? [] : result.problems, dir };
}

test("schema problems and invalid JSON, every one of them", async () => {
  const { problems } = await compileErrors("errors-schema");
  expect(problems).toEqual([
    'funds.jsonl:1: fund_type: expected one of: vc, angel, accelerator, launchpad, cvc, family-office; not "hedge"',
    'funds.jsonl:1: score: expected a number, not the string "high"',
    'funds.jsonl:2: slug: expected a slug other than "rankings" (the path of an operation)',
    "narratives.jsonl:1: timeline[0].date: no such date: 2026-02-30 (February 2026 has 28 days)",
    'narratives.jsonl:1: signal.score: expected a number, not the string "high"',
    "people.jsonl:1: roles[0]: expected project_id or fund_id: one, not both",
    "people.jsonl:1: roles[1]: expected project_id or fund_id: one, not both",
    "projects.jsonl:3: (root): invalid JSON at character 27: expected \",\" or \"}\" after a property value, found the end of the line (1 bracket left open)",
    'projects.jsonl:4: slug: expected a slug of 1-160 characters [a-z0-9-]: "P 3" has "P" at character 1; did you mean "p-3"?',
    "projects.jsonl:4: name: expected a non-empty string",
    "projects.jsonl:4: funding[0].amount_usd: expected a number >= 0, not -5",
    'projects.jsonl:4: funding[0].announced_at: expected an ISO 8601 UTC date-time such as 2026-03-01T12:00:00Z: "2026-01-01" is a date without a time: write, e.g., "2026-01-01T00:00:00Z"',
    'projects.jsonl:4: funding[0].verified: expected a boolean, not the string "yes"',
    'projects.jsonl:4: (root): unknown field "bogus"',
    "projects.jsonl:5: (root): expected an object, not an array of 2 items",
    "projects.jsonl:6: id: required",
    'projects.jsonl:6: tvl.mapping.state: expected one of: confirmed, conflicting, unmapped; not "maybe"',
    "tokens.jsonl:1: market.rank: expected an integer, not 1.5",
    "tokens.jsonl:1: tokenomics.model_type.confidence: expected a number <= 1, not 2",
    // The unlock rule needs a schedule that ends after it starts, a cliff inside it, and a cadence it knows.
    "tokens.jsonl:2: tokenomics.vesting_schedules.value[0].end_at: expected a time after start_at 2026-01-01T00:00:00Z",
    "tokens.jsonl:2: tokenomics.vesting_schedules.value[1].cliff_at: expected a time from start_at 2026-01-01T00:00:00Z to end_at 2027-01-01T00:00:00Z",
    'tokens.jsonl:2: tokenomics.vesting_schedules.value[2].cadence: expected one of: daily, weekly, monthly, quarterly, yearly, linear; not "fortnightly"',
    'trending.jsonl:1: entity.type: expected one of: project, token, person, stock, narrative, x_account; not "bogus"',
    'trending.jsonl:1: day: expected the string "live" or a date YYYY-MM-DD: "yesterday" is not one',
  ]);
});

test("root causes first: a record that fails is reported once, not at every reference, and in the curator's terms", async () => {
  const { problems } = await compileErrors("errors-root-causes");
  // Eleven references name the six failed records; only the one to a record that does not exist is reported.
  expect(problems).toEqual([
    "funds.jsonl:1: (root): the file starts with a byte order mark (BOM, bytes EF BB BF): save it as UTF-8 without a BOM",
    'funds.jsonl:2: (root): duplicate key "score": a record may name each field once (JSON would keep only the last value)',
    "funds.jsonl:3: fund_type: required",
    "people.jsonl:1: roles[0].started_at: no such date: 2025-02-29 (February 2025 has 28 days)",
    "projects.jsonl:1: funding[0].amount_usd: expected a number >= 0, not -5",
    'projects.jsonl:2: slug: expected a slug of 1-160 characters [a-z0-9-]: "-dash" may not start with "-"; did you mean "dash"?',
    'projects.jsonl:3: (root): invalid JSON: trailing comma at character 53: remove the comma before "}"',
    "projects.jsonl:4: funding[0].announced_at: no such date: 2026-02-30 (February 2026 has 28 days)",
    'tokens.jsonl:3: project_id: unknown project "p_missing"',
    'x_accounts.jsonl:1: (root): unknown field "bogus"',
  ]);
});

test("broken references", async () => {
  const { problems } = await compileErrors("errors-references");
  expect(problems).toEqual([
    "events.jsonl:1: end_date: end_date 2026-03-04 is before start_date 2026-03-05",
    'narratives.jsonl:1: projects[1]: unknown project "p_missing"',
    'narratives.jsonl:1: projects[2]: duplicate project "p1" (first at projects[0])',
    'news.jsonl:1: entities[1].id: unknown token "t_missing"',
    'news.jsonl:2: entities[0].id: unknown stock "s_missing"',
    'news.jsonl:2: entities[2].id: unknown narrative "n_missing"',
    'people.jsonl:1: investments[0].project_id: unknown project "p_missing"',
    'people.jsonl:1: investments[1].round_id: round "r_missing" is not a funding round of project "p1"',
    'people.jsonl:1: roles[0].project_id: unknown project "p_nope"',
    'people.jsonl:2: roles[0].fund_id: unknown fund "f_missing"',
    'projects.jsonl:1: funding[0].investors[0].id: unknown fund "f_missing"',
    'tokens.jsonl:1: project_id: unknown project "p_missing"',
    'trending.jsonl:1: entity.id: unknown project "p_missing"',
    'trending.jsonl:2: entity.handle: unknown X account "@nobody_here": no record of x_accounts.jsonl has this handle (case and @ ignored)',
    'trending.jsonl:3: entity.id: unknown token "t_ghost"',
    'trending.jsonl:4: entity.id: unknown narrative "n_ghost"',
    'x_accounts.jsonl:1: linked_entity.id: project "p_hidden" is hidden or deleted',
    'x_accounts.jsonl:2: linked_entity.id: unknown person "person_missing"',
  ]);
});

test("duplicate ids, slugs, list ids, benchmarks and X handles", async () => {
  const { problems } = await compileErrors("errors-duplicates");
  expect(problems).toEqual([
    'funds.jsonl:2: id: duplicate id "f1" (first on line 1)',
    'narratives.jsonl:2: id: duplicate id "n1" (first on line 1)',
    'narratives.jsonl:3: slug: duplicate slug "n-2" (first on line 2)',
    'projects.jsonl:1: features[1].feature_id: duplicate feature_id "f1" (first at features[0])',
    'projects.jsonl:2: slug: duplicate slug "p-1" (first on line 1)',
    'projects.jsonl:3: id: duplicate id "p1" (first on line 1)',
    'tokens.jsonl:2: benchmark: duplicate benchmark "btc" (first on line 1)',
    'x_accounts.jsonl:2: handle: duplicate X handle "dup_handle" (case and @ ignored): 3 records use it, on lines 1, 2, 3; keep one, linked to the one entity the account speaks for',
    'x_accounts.jsonl:3: handle: duplicate X handle "DUP_HANDLE" (case and @ ignored): 3 records use it, on lines 1, 2, 3; keep one, linked to the one entity the account speaks for',
  ]);
});

test("X accounts without an X secret are a clear error", async () => {
  const { problems } = await compileErrors("valid", "");
  expect(problems).toEqual([
    "trending.jsonl:4: entity.handle: an X secret is required to resolve X handles (--x-secret-file <file>, env CEI_X_SECRET, or .cei-x-secret in the source folder)",
    "trending.jsonl:12: entity.handle: an X secret is required to resolve X handles (--x-secret-file <file>, env CEI_X_SECRET, or .cei-x-secret in the source folder)",
    "x_accounts.jsonl:1: (root): an X secret is required to compile X accounts (--x-secret-file <file>, env CEI_X_SECRET, or .cei-x-secret in the source folder)",
  ]);
});

test("a missing source folder is a problem, not an exception", async () => {
  const dir = testTempDir("cei-errors-");
  const result = await compileSnapshot({ sourceDir: join(dir, "nope"), outFile: join(dir, "s.db"), compiledAt: FIXTURE_COMPILED_AT });
  expect(result).toEqual({ ok: false, problems: [`${join(dir, "nope")}: (root): source directory not found`] });
  expect(existsSync(join(dir, "s.db"))).toBe(false);
});
