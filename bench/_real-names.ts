// Search sets shaped like real names (decision 29's cost targets): the real fixture
// (fixtures/real-search) compiled as it is, and larger sets whose names are drawn from its words,
// their real frequencies, and its symbols, so that long tails of similar names ("ETH 12 Day EMA
// Crossover Set", "Yearn Classic Finance") occur as in real data, unlike the generated sample's.
import { existsSync, mkdirSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { compileSnapshot } from "../compiler/compile.ts";
import { readManifest } from "../compiler/manifest.ts";
import { families } from "../compiler/families/index.ts";
import { fold } from "../snapshot/fold.ts";
import { SNAPSHOT_FORMAT_VERSION } from "../snapshot/schema.ts";
import { runCompileChild } from "./_children.ts";
import { BENCH_X_SECRET, OUT_DIR, REPO_DIR } from "./_config.ts";
import type { Sample } from "./_samples.ts";
import { mulberry32 } from "./search.ts";

export const REAL_FIXTURE = join(REPO_DIR, "fixtures/real-search");
/** The compile date of the real sets (their records carry no observation to derive one from). */
const AS_OF = new Date("2026-03-01T12:00:00.000Z");

export interface RealCoin { id: string; slug: string; name: string; symbol?: string }

/** The real fixture's projects with their tokens' symbols. */
export function realCoins(): RealCoin[] {
  const read = (file: string) => readFileSync(join(REAL_FIXTURE, file), "utf8").split("\n").filter((line) => line !== "").map((line) => JSON.parse(line) as Record<string, string>);
  const symbols = new Map(read("tokens.jsonl").map((token) => [token.project_id!, token.symbol!]));
  return read("projects.jsonl").map((p) => ({ id: p.id!, slug: p.slug!, name: p.name!, symbol: symbols.get(p.id!) }));
}

/** The real fixture compiled (cached under bench/out/ while the fixture and the format are unchanged). */
export async function ensureRealSnapshot(log: (line: string) => void): Promise<string> {
  const file = join(OUT_DIR, "real-search.db");
  if (_fresh(file, join(REAL_FIXTURE, "projects.jsonl"))) return file;
  mkdirSync(OUT_DIR, { recursive: true });
  rmSync(file, { force: true });
  const result = await compileSnapshot({ sourceDir: REAL_FIXTURE, outFile: file, compiledAt: AS_OF, xSecret: BENCH_X_SECRET });
  if (!result.ok) throw new Error(`fixtures/real-search did not compile:\n${result.problems.join("\n")}`);
  log(`  compiled fixtures/real-search to ${file}`);
  return file;
}

/**
 * A set of `records` (half projects, half their tokens) whose names are 1-4 words drawn from the
 * real names' words by their frequency, a fifth of them a real name with a word added, and whose
 * symbols are real symbols, some with a digit: compiled by the real compiler in a child process.
 */
export async function ensureRealShapedSnapshot(records: number, log: (line: string) => void): Promise<{ file: string; names: RealCoin[] }> {
  const dir = join(OUT_DIR, `real-shaped-${records}`);
  const file = join(OUT_DIR, `real-shaped-${records}.db`);
  const coins = _realShaped(records / 2);
  if (!_fresh(file, join(dir, "projects.jsonl"))) {
    rmSync(dir, { recursive: true, force: true });
    mkdirSync(dir, { recursive: true });
    const lines = (make: (coin: RealCoin) => object) => coins.map((coin) => JSON.stringify(make(coin)) + "\n").join("");
    writeFileSync(join(dir, "projects.jsonl"), lines((c) => ({ id: `project:${c.id}`, slug: c.slug, name: c.name })));
    writeFileSync(join(dir, "tokens.jsonl"), lines((c) => ({ id: `token:${c.id}`, slug: c.slug, symbol: c.symbol, name: c.name, project_id: `project:${c.id}` })));
    for (const { file } of families) if (file !== "projects.jsonl" && file !== "tokens.jsonl") writeFileSync(join(dir, file), "");
    const sample: Sample = { scale: 0, dir, asOf: AS_OF, lines: records };
    const report = await runCompileChild("compile", sample, file);
    log(`  compiled a real-shaped set of ${records.toLocaleString("en-US")} records in ${(report.wallMs / 1000).toFixed(1)} s`);
  }
  return { file, names: coins };
}

/** `count` realistic queries for a set: full names, prefixes of 2-8 characters, words in another order, word prefixes, symbols, slugs, names without their accents' case. */
export function realisticQueries(coins: readonly RealCoin[], count: number, seed = 0x5eed): string[] {
  const random = mulberry32(seed);
  const pick = <T>(list: readonly T[]): T => list[Math.floor(random() * list.length)]!;
  const makers = [
    (c: RealCoin) => c.name,
    (c: RealCoin) => c.name.toLowerCase(),
    (c: RealCoin) => c.name.slice(0, 2 + Math.floor(random() * 7)),
    (c: RealCoin) => c.name.split(/\s+/).reverse().join(" "),
    (c: RealCoin) => c.name.split(/\s+/).map((w) => w.slice(0, 3)).join(" "),
    (c: RealCoin) => c.symbol ?? c.name,
    (c: RealCoin) => c.slug,
    (c: RealCoin) => fold(c.name),
  ];
  const valid = (text: string) => text.trim().length >= 2 && /[\p{L}\p{N}]/u.test(text);
  return Array.from({ length: count }, (_, i) => {
    let text = makers[i % makers.length]!(pick(coins));
    while (!valid(text)) text = pick(coins).name;
    return text;
  });
}

function _realShaped(count: number): RealCoin[] {
  const real = realCoins();
  const random = mulberry32(0xc0ffee);
  // Every word occurrence once: drawing from the list draws each word by its real frequency.
  const words = real.flatMap((coin) => coin.name.split(/\s+/).filter((word) => word !== ""));
  const symbols = real.flatMap((coin) => (coin.symbol === undefined ? [] : [coin.symbol]));
  const pick = <T>(list: readonly T[]): T => list[Math.floor(random() * list.length)]!;
  return Array.from({ length: count }, (_, i) => {
    const name = random() < 0.2 ? `${pick(real).name} ${pick(words)}` : Array.from({ length: 1 + Math.floor(random() * 4) }, () => pick(words)).join(" ");
    const symbol = random() < 0.3 ? `${pick(symbols)}${Math.floor(random() * 10)}`.slice(0, 20) : pick(symbols);
    return { id: `gen-${i}`, slug: `gen-${i}`, name: name.slice(0, 200), symbol };
  });
}

function _fresh(file: string, source: string): boolean {
  if (!existsSync(file) || !existsSync(source) || statSync(file).mtimeMs < statSync(source).mtimeMs) return false;
  try {
    return readManifest(file).format_version === SNAPSHOT_FORMAT_VERSION;
  } catch {
    return false;
  }
}
