// Section 4: search at scale, in-process on the large snapshot. Mixed queries (exact names and
// slugs, prefixes, substrings, token symbols, X handles) taken from the snapshot and the sample,
// timed one by one through the same SearchIndex.search the operations call, and again through the
// whole search_entities handler (validation, search, identity lookups).
import { readFileSync } from "node:fs";
import { loadavg } from "node:os";
import { join } from "node:path";
import type Database from "better-sqlite3";
import type { ErrorDetail } from "../server/errors.ts";
import { dataValue } from "../server/prebuilt-json.ts";
import { handleSearchKey } from "../snapshot/x-ids.ts";
import type { Caller } from "../server/operations/operation.ts";
import { createSearchIndex, defaultSearchFamilies, SEARCH_CANDIDATE_LIMIT } from "../server/operations/search-index.ts";
import { SEARCH_DEFAULT_LIMIT, searchEntities, searchEntries } from "../server/operations/search-entities.ts";
import { openSnapshot } from "../snapshot/open.ts";
import { BENCH_X_SECRET, type BenchConfig } from "./_config.ts";
import { percentile } from "./_load.ts";
import { fixed, target, type SectionResult } from "./_report.ts";
import type { Sample } from "./_samples.ts";
import { ADVERSARIAL_TOP, adversarialQueries, type AdversarialQuery } from "./_search-adversarial.ts";
import { recordsLabel } from "./compile.ts";

const queryKinds = ["exact", "prefix", "substring", "symbol", "handle"] as const;
type QueryKind = (typeof queryKinds)[number];
interface Query { kind: QueryKind; text: string }
/** Unmeasured queries first, so that statements and pages are warm as on a running server. */
const WARMUP_QUERIES = 500;
/** Passes over the adversarial set; each request's figure is its median over them. */
const ADVERSARIAL_ROUNDS = 3;

/** Wall-clock times, and the process's CPU time per query (unaffected by other processes' load). */
interface Timing { p50Ms: number; p99Ms: number; maxMs: number; cpuP99Ms: number; cpuMaxMs: number; firstPassMaxMs: number; meanHits: number; count: number }

/** Search ignores who calls it; the handler still takes the admitted key. */
const BENCH_CALLER: Caller = {
  id: "key_bench", tier: "internal", scopes: new Set(["search"]), credits_remaining: 0,
  rate_limit: { limit: 1, remaining: 1, reset_at: new Date(0).toISOString(), tier: "internal" },
};

export async function benchSearch(config: BenchConfig, sample: Sample, snapshotPath: string, log: (line: string) => void): Promise<SectionResult> {
  const snapshot = openSnapshot(snapshotPath);
  try {
    const queries = _queries(snapshot, sample, config.searchQueries);
    const xHandleSearchKey = handleSearchKey(BENCH_X_SECRET);
    const index = createSearchIndex(snapshot, xHandleSearchKey, searchEntries);
    const all = new Set(defaultSearchFamilies);
    const handler = searchEntities.create({ snapshot, now: Date.now, xHandleSearchKey });
    const viaIndex = _time(queries, (text) => index.search(text, all, SEARCH_DEFAULT_LIMIT), (hits) => hits.length);
    const viaHandler = _time(queries, (text) => {
      const validation = handler.validate({ params: {}, query: {}, body: { q: text } }, [] as ErrorDetail[]);
      if (!validation.valid) throw new Error(`search "${text}" is invalid`);
      const result = handler.run(validation.request, BENCH_CALLER);
      if (result.outcome !== "ok") throw new Error(`search "${text}" answered ${result.outcome}`);
      return result.data;
    }, _resultCount);
    // The adversarial search set, each request as a client would send it, through the handler.
    const adversarial = adversarialQueries(snapshot);
    const attack = _time(adversarial.queries.map(({ kind, q, types }) => ({ kind, text: JSON.stringify(types === undefined ? { q } : { q, types }) })), (text) => {
      const validation = handler.validate({ params: {}, query: {}, body: { ...(JSON.parse(text) as AdversarialQuery), limit: 20 } }, [] as ErrorDetail[]);
      if (!validation.valid) throw new Error(`search ${text} is invalid`);
      const result = handler.run(validation.request, BENCH_CALLER);
      if (result.outcome !== "ok") throw new Error(`search ${text} answered ${result.outcome}`);
      return result.data;
    }, _resultCount, ["trigram", "bigram", "glued"] as const, Infinity, ADVERSARIAL_ROUNDS);
    const ngrams = _summary(attack.samples.filter((s) => s.kind !== "glued"));
    const label = recordsLabel(sample.lines);
    log(`  ${queries.length} queries on ${label}: search() p99 ${fixed(viaIndex.all.p99Ms)} ms, handler p99 ${fixed(viaHandler.all.p99Ms)} ms`);
    log(`  adversarial: ${adversarial.queries.length} requests (${adversarial.refused} n-grams the API refuses left out): trigrams and bigrams p99 ${fixed(ngrams.p99Ms)} ms, max ${fixed(ngrams.maxMs)} ms (CPU ${fixed(ngrams.cpuP99Ms)}, ${fixed(ngrams.cpuMaxMs)} ms; one pass: max ${fixed(ngrams.firstPassMaxMs)} ms); glued max ${fixed(attack.byKind.glued.maxMs)} ms; load average ${loadavg()[0]!.toFixed(1)}`);
    const row = (name: string, t: Timing) => [name, fixed(t.p50Ms), fixed(t.p99Ms), fixed(t.maxMs), fixed(t.meanHits)];
    const cpuRow = (name: string, t: Timing) => [...row(name, t), fixed(t.cpuP99Ms), fixed(t.cpuMaxMs), fixed(t.firstPassMaxMs)];
    return {
      tables: [{
        title: `Search on the ${label} snapshot, in-process: ${queries.length} mixed queries, one at a time (ms)`,
        header: ["queries", "p50", "p99", "max", "hits/query"],
        rows: [
          ...queryKinds.map((kind) => row(`search(): ${kind}`, viaIndex.byKind[kind])),
          row("search(): all", viaIndex.all),
          row("search_entities handler: all", viaHandler.all),
        ],
      }, {
        title: `Adversarial search on the ${label} snapshot, whole handler, limit 20: the ${ADVERSARIAL_TOP} most common trigrams and bigrams, ` +
          `each alone and with every single type; texts glued from two common trigrams (candidate limit ${SEARCH_CANDIDATE_LIMIT}); median of ${ADVERSARIAL_ROUNDS} passes per request (ms)`,
        header: ["requests", "p50", "p99", "max", "hits/request", "CPU p99", "CPU max", "1-pass max"],
        rows: [
          cpuRow(`trigrams (${attack.byKind.trigram.count})`, attack.byKind.trigram),
          cpuRow(`bigrams (${attack.byKind.bigram.count})`, attack.byKind.bigram),
          cpuRow(`trigrams and bigrams (${ngrams.count})`, ngrams),
          cpuRow(`glued trigrams (${attack.byKind.glued.count})`, attack.byKind.glued),
        ],
      }],
      targets: [
        target(`search: p99 of search() on ${label}`, viaIndex.all.p99Ms, "max", 2, " ms"),
        target(`search: adversarial p99 on ${label}`, ngrams.p99Ms, "max", 1, " ms"),
        target(`search: adversarial max on ${label}`, ngrams.maxMs, "max", 3, " ms"),
      ],
      figures: { queries: queries.length, search: _figures(viaIndex), handler: _figures(viaHandler), adversarial: { requests: adversarial.queries.length, refused: adversarial.refused, ngrams, ...attack.byKind } },
    };
  } finally {
    snapshot.close();
  }
}

/**
 * Each query timed in `rounds` passes over the whole list; a query's figure is its median over the
 * passes, so that one garbage collection or one preemption by another process does not count as
 * that query's cost (the single-pass maximum is kept as `firstPassMaxMs`).
 */
/** `hits` counts what `run` answered, outside the timed part. */
function _time<K extends string, T>(
  queries: ReadonlyArray<{ kind: K; text: string }>, run: (text: string) => T, hits: (answer: T) => number,
  kinds: readonly K[] = queryKinds as unknown as K[], warmup = WARMUP_QUERIES, rounds = 1,
) {
  for (const query of queries.slice(0, warmup)) run(query.text);
  const passes = Array.from({ length: rounds }, () => queries.map((query) => {
    const cpu = process.cpuUsage();
    const started = performance.now();
    const answer = run(query.text);
    const ms = performance.now() - started;
    const used = process.cpuUsage(cpu);
    return { ms, cpuMs: (used.user + used.system) / 1000, hits: hits(answer) };
  }));
  const median = (values: number[]) => values.sort((a, b) => a - b)[Math.floor(values.length / 2)]!;
  const samples = queries.map((query, i) => ({
    kind: query.kind,
    ms: median(passes.map((pass) => pass[i]!.ms)),
    cpuMs: median(passes.map((pass) => pass[i]!.cpuMs)),
    firstMs: passes[0]![i]!.ms,
    hits: passes[0]![i]!.hits,
  }));
  const byKind = Object.fromEntries(kinds.map((kind) => [kind, _summary(samples.filter((s) => s.kind === kind))])) as Record<K, Timing>;
  return { all: _summary(samples), byKind, samples };
}

/** The number of results in a search_entities answer (its data, as the envelope would send it). */
function _resultCount(data: unknown): number {
  return (dataValue(data) as { results: unknown[] }).results.length;
}

/** What results.json keeps of a timing: the summaries, not every sample. */
function _figures({ all, byKind }: { all: Timing; byKind: Record<string, Timing> }) {
  return { all, byKind };
}

function _summary(list: ReadonlyArray<{ ms: number; cpuMs: number; firstMs: number; hits: number }>): Timing {
  const sorted = list.map((s) => s.ms).sort((a, b) => a - b);
  const cpu = list.map((s) => s.cpuMs).sort((a, b) => a - b);
  return {
    p50Ms: percentile(sorted, 0.5), p99Ms: percentile(sorted, 0.99), maxMs: sorted[sorted.length - 1] ?? Number.NaN,
    cpuP99Ms: percentile(cpu, 0.99), cpuMaxMs: cpu[cpu.length - 1] ?? Number.NaN,
    firstPassMaxMs: Math.max(...list.map((s) => s.firstMs)),
    meanHits: list.reduce((n, s) => n + s.hits, 0) / list.length, count: list.length,
  };
}

/** `count` queries in equal shares per kind, shuffled, from a fixed seed. */
function _queries(snapshot: Database.Database, sample: Sample, count: number): Query[] {
  const random = mulberry32(0x5eed);
  const pick = <T>(list: readonly T[]): T => list[Math.floor(random() * list.length)]!;
  const column = (sql: string) => snapshot.prepare<[], string>(sql).pluck().all();
  const names = [
    ...column("SELECT name FROM projects"), ...column("SELECT full_name FROM people WHERE is_search_candidate = 1"),
    ...column("SELECT name FROM funds"), ...column("SELECT name FROM stocks"), ...column("SELECT name FROM tokens"),
  ];
  const slugs = [...column("SELECT slug FROM projects"), ...column("SELECT slug FROM tokens"), ...column("SELECT slug FROM funds")];
  const symbols = [...column("SELECT symbol FROM tokens"), ...column("SELECT ticker FROM stocks")];
  const handles = readFileSync(join(sample.dir, "x_accounts.jsonl"), "utf8")
    .split("\n").filter((line) => line !== "").map((line) => (JSON.parse(line) as { handle: string }).handle);
  const make: Record<QueryKind, () => string> = {
    exact: () => (random() < 0.7 ? pick(names) : pick(slugs)),
    prefix: () => pick(names).slice(0, 2 + Math.floor(random() * 5)),
    substring: () => {
      const name = pick(names);
      const length = 3 + Math.floor(random() * 4);
      const start = 1 + Math.floor(random() * Math.max(1, name.length - length - 1));
      return name.slice(start, start + length);
    },
    symbol: () => pick(symbols),
    handle: () => pick(handles),
  };
  // Only texts the API accepts (2+ characters after trimming, a letter or digit), redrawn until valid.
  const valid = (text: string) => text.trim().length >= 2 && /[\p{L}\p{N}]/u.test(text);
  const queries = Array.from({ length: count }, (_, i) => {
    const kind = queryKinds[i % queryKinds.length]!;
    let text = make[kind]();
    while (!valid(text)) text = make[kind]();
    return { kind, text };
  });
  for (let i = queries.length - 1; i > 0; i--) {
    const j = Math.floor(random() * (i + 1));
    [queries[i], queries[j]] = [queries[j]!, queries[i]!];
  }
  return queries;
}

/** A small seeded PRNG (mulberry32): the bench's query sets are the same on every run. */
export function mulberry32(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}
