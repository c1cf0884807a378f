// What one `npm run bench` measures and for how long: the full run (the figures in
// docs/performance.md) or `--quick` (short loads, small scales, for development), and `--only`.
import { join } from "node:path";
import { fileURLToPath } from "node:url";

export const sections = ["compile", "diff", "http", "operations", "scaling", "search", "relevance", "startup", "refused", "observe", "postgres"] as const;
export type Section = (typeof sections)[number];

export interface BenchConfig {
  quick: boolean;
  only: ReadonlySet<Section>;
  /** Sample scales, smallest first; about 1,100 source lines per unit (data/plan.ts). */
  scales: readonly [small: number, medium: number, large: number];
  /** Seconds of measured load per run, after an unmeasured warm-up of `warmupSeconds`. */
  loadSeconds: number;
  warmupSeconds: number;
  /** Seconds of measured load per operation in section "operations" (19 runs per round). */
  operationSeconds: number;
  /**
   * Rounds of section "operations": its ratio targets sit near their bounds and one noisy round
   * moves a median of 3 by a tenth (docs/performance.md, "Run-to-run spread").
   */
  operationRounds: number;
  /** raw, h3, cei alternated this many times (section 1); each scale this many times (section 3). */
  httpRounds: number;
  scalingRounds: number;
  /** Compile and floor alternated this many times at each scale (section 2); medians reported. */
  compileRounds: number;
  searchQueries: number;
  startupTrials: number;
}

export const BENCH_DIR = fileURLToPath(new URL(".", import.meta.url));
export const REPO_DIR = join(BENCH_DIR, "..");
/** Generated samples, snapshots, meter files, profiles: gitignored, safe to delete. */
export const OUT_DIR = join(BENCH_DIR, "out");
export const RESULTS_FILE = join(BENCH_DIR, "results.json");
/** The X id secret of every bench compile (any fixed value: the sample has X accounts). */
export const BENCH_X_SECRET = "cei-bench-x-secret-of-32-bytes-or-more";

const FULL = {
  scales: [9, 91, 910],
  loadSeconds: 8,
  warmupSeconds: 2,
  operationSeconds: 4,
  operationRounds: 5,
  httpRounds: 3,
  scalingRounds: 3,
  compileRounds: 3,
  searchQueries: 10_000,
  startupTrials: 5,
} as const;

const QUICK = {
  scales: [1, 9, 91],
  loadSeconds: 2,
  warmupSeconds: 1,
  operationSeconds: 2,
  operationRounds: 3,
  httpRounds: 3,
  scalingRounds: 1,
  compileRounds: 1,
  searchQueries: 2_000,
  startupTrials: 3,
} as const;

export function parseArgs(argv: readonly string[]): BenchConfig {
  let quick = false;
  let only: Set<Section> = new Set(sections);
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i]!;
    if (arg === "--quick") {
      quick = true;
    } else if (arg === "--only" || arg.startsWith("--only=")) {
      const value = arg === "--only" ? argv[++i] : arg.slice("--only=".length);
      only = new Set(_sectionList(value ?? ""));
    } else {
      throw new Error(`unknown argument "${arg}" (expected --quick, --only ${sections.join(",")})`);
    }
  }
  const preset = quick ? QUICK : FULL;
  return { quick, only, ...preset, scales: [...preset.scales] as unknown as BenchConfig["scales"] };
}

function _sectionList(value: string): Section[] {
  const names = value.split(",").map((name) => name.trim()).filter((name) => name !== "");
  const unknown = names.filter((name) => !(sections as readonly string[]).includes(name));
  if (names.length === 0 || unknown.length > 0) {
    throw new Error(`--only takes a comma-separated list of: ${sections.join(", ")} (got "${value}")`);
  }
  return names as Section[];
}
