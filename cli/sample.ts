// `cei sample`: writes the bundled curated sample (data/sample.ts) into a folder.
import { randomBytes } from "node:crypto";
import { existsSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { InvalidArgumentError, type Command } from "commander";
import { writeSample } from "../data/sample.ts";

const ISO_TIME = /^\d{4}-\d{2}-\d{2}(?:T\d{2}:\d{2}(?::\d{2}(?:\.\d{1,9})?)?(?:Z|[+-]\d{2}:\d{2}))?$/;

/** An ISO 8601 date-time with a zone (Z or ±hh:mm), or a date meaning its midnight UTC. */
export function parseAsOf(value: string): Date {
  const ms = ISO_TIME.test(value) && isCalendarDate(value.slice(0, 10)) ? Date.parse(value) : Number.NaN;
  if (Number.isNaN(ms)) {
    throw new InvalidArgumentError("expected an ISO 8601 date-time with a zone, e.g. 2026-11-21T18:30:00Z, or a date YYYY-MM-DD");
  }
  return new Date(ms);
}

/** Date.parse rolls 2026-02-30 over to March; a mistyped day should be an error instead. */
function isCalendarDate(ymd: string): boolean {
  const [year, month, day] = ymd.split("-").map(Number) as [number, number, number];
  const probe = new Date(Date.UTC(year, month - 1, day));
  return probe.getUTCFullYear() === year && probe.getUTCMonth() === month - 1 && probe.getUTCDate() === day;
}

export function parseScale(value: string): number {
  const scale = /^\s*\d*\.?\d+(?:e[+-]?\d+)?\s*$/i.test(value) ? Number(value) : Number.NaN;
  if (!Number.isFinite(scale) || scale <= 0) throw new InvalidArgumentError("expected a positive number, e.g. 1, 10 or 1000");
  if (scale > 100_000) throw new InvalidArgumentError("expected at most 100000 (about 110 million lines)");
  return scale;
}

export function registerSample(program: Command): void {
  program
    .command("sample")
    .description("Write the bundled curated sample (one JSONL file per family), fresh relative to --as-of.")
    .requiredOption("--out <dir>", "folder to write the source files into (created if missing; files are overwritten)")
    .option("--as-of <datetime>", "the moment the sample is fresh at (ISO 8601; default: now)", parseAsOf)
    .option("--scale <n>", "size: about 1,100 lines per unit, e.g. 1000 for about 1.1M lines (default: 1)", parseScale)
    .addHelpText(
      "after",
      "\nThe same --as-of and --scale always give byte-identical files. Compile them with the same\n" +
        "--as-of: cei compile --source <dir> --out snapshot.db --as-of <datetime>. See docs/sample.md.",
    )
    .action(async (options: { out: string; asOf?: Date; scale?: number }) => {
      const asOf = options.asOf ?? new Date();
      const scale = options.scale ?? 1;
      const started = performance.now();
      const { files } = await writeSample({ outDir: options.out, asOf, scale });
      // The X id secret lives with the sources, so that every compile of them gives the same X ids.
      const secretFile = join(options.out, ".cei-x-secret");
      if (!existsSync(secretFile)) writeFileSync(secretFile, randomBytes(32).toString("hex") + "\n", { mode: 0o600, flag: "wx" });
      const lines = Object.values(files).reduce((sum, count) => sum + count, 0);
      const seconds = ((performance.now() - started) / 1000).toFixed(1);
      process.stderr.write(
        `sample: wrote ${lines.toLocaleString("en-US")} lines in ${Object.keys(files).length} files to ${options.out} ` +
          `(as-of ${asOf.toISOString()}, scale ${scale}) in ${seconds}s\n`,
      );
    });
}
