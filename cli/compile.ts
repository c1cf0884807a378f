// `cei compile`: curated JSONL sources to a read-only snapshot file.
import { existsSync, lstatSync, readFileSync, rmSync } from "node:fs";
import { join } from "node:path";
import { InvalidArgumentError, type Command } from "commander";
import { parseZonedDateTime } from "./_dates.ts";
import { compileSnapshot } from "../compiler/compile.ts";
import { MAX_PROBLEMS_PER_KIND, summaryText, type ProblemSummary } from "../compiler/problem-report.ts";
import { scratchDirFor } from "../compiler/scratch.ts";
import { stopCompilerWorkers } from "../compiler/workers.ts";
import { SHRINK_LIMIT } from "../compiler/shrink.ts";
import type { SnapshotDiff } from "../snapshot/diff.ts";
import { summariseDiff } from "../snapshot/text.ts";
import { publishedOf, publishedText } from "../snapshot/published.ts";
import { isOffered, operationIds } from "../server/policy.ts";

interface CompileFlags {
  source: string;
  out: string;
  asOf?: Date;
  xSecretFile?: string;
  allowStale?: boolean;
  allowShrink?: boolean;
  maxProblems: number;
}

/** The smallest X secret accepted, in bytes (256 bits). */
export const X_SECRET_MIN_BYTES = 32;
/** The X secret's file in a source folder, used when neither --x-secret-file nor CEI_X_SECRET is given. */
export const SOURCE_X_SECRET_FILE = ".cei-x-secret";

/**
 * The secret behind X account ids (and the server's handle-search key): `file` if given, else env
 * CEI_X_SECRET, else `defaultFile` if it exists, else undefined. A file must be a regular file
 * (not a symlink) owned by the current user, readable by nobody else (no group/other bits), and
 * hold at least 32 bytes (a trailing newline is not part of the secret); the env secret must be at
 * least 32 bytes. Throws an Error whose message is one line naming what is wrong.
 */
export function readXSecret(file: string | undefined, defaultFile?: string, env: NodeJS.ProcessEnv = process.env): string | undefined {
  if (file === undefined) {
    const fromEnv = env.CEI_X_SECRET;
    if (fromEnv !== undefined && fromEnv !== "") {
      const bytes = Buffer.byteLength(fromEnv);
      if (bytes < X_SECRET_MIN_BYTES) throw new Error(`env CEI_X_SECRET is ${bytes} bytes; an X secret needs at least ${X_SECRET_MIN_BYTES}`);
      return fromEnv;
    }
    if (defaultFile === undefined || !existsSync(defaultFile)) return undefined;
  }
  const path = (file ?? defaultFile)!;
  let stat;
  try {
    stat = lstatSync(path);
  } catch {
    throw new Error(`X secret file ${path} does not exist`);
  }
  if (stat.isSymbolicLink()) throw new Error(`X secret file ${path} is a symbolic link; name the file itself`);
  if (!stat.isFile()) throw new Error(`X secret file ${path} is not a regular file`);
  if (process.getuid !== undefined && stat.uid !== process.getuid()) {
    throw new Error(`X secret file ${path} is owned by uid ${stat.uid}, not by the current user (uid ${process.getuid()})`);
  }
  const mode = stat.mode & 0o777;
  if ((mode & 0o077) !== 0) throw new Error(`X secret file ${path} has mode ${mode.toString(8).padStart(4, "0")}; run chmod 600 ${path}`);
  const secret = readFileSync(path, "utf8").replace(/\r?\n$/, "");
  const bytes = Buffer.byteLength(secret);
  if (bytes < X_SECRET_MIN_BYTES) throw new Error(`X secret file ${path} holds ${bytes} bytes; an X secret needs at least ${X_SECRET_MIN_BYTES}`);
  return secret;
}


/** `--max-problems`: a whole number, 0 for the summary alone. */
function parseMaxProblems(value: string): number {
  const n = /^\d{1,9}$/.test(value) ? Number(value) : Number.NaN;
  if (!Number.isSafeInteger(n)) throw new InvalidArgumentError("expected a whole number >= 0");
  return n;
}

/** The last line of a failed compile: how many problems, and how many are listed when some were left out. */
function failureLine(out: string, problems: readonly string[], summary: ProblemSummary | undefined): string {
  if (summary === undefined) return `cei compile: ${problems.length} problem(s); ${out} was not written\n`;
  return `cei compile: ${summary.total} problem(s) of ${summary.kinds.length} kind(s), ${problems.length} listed; ${out} was not written\n`;
}

/** How long a stopped compile waits for its worker threads before it removes the scratch folder anyway. */
const STOP_WORKERS_MS = 10_000;

/**
 * On SIGINT/SIGTERM the worker threads are stopped, then the scratch folder (hidden records
 * included) goes before the process does.
 */
function removeScratchOnSignals(outFile: string): () => void {
  let stopping = false;
  const handlers = (["SIGINT", "SIGTERM"] as const).map((signal) => {
    const handler = async () => {
      if (stopping) return;
      stopping = true;
      await Promise.race([stopCompilerWorkers(), new Promise((resolve) => setTimeout(resolve, STOP_WORKERS_MS).unref())]);
      try {
        // Worker threads may still be creating files in it: retry a non-empty folder.
        rmSync(scratchDirFor(outFile), { recursive: true, force: true, maxRetries: 10, retryDelay: 20 });
      } catch (error) {
        process.stderr.write(`cei compile: could not remove the scratch folder (the next compile will): ${(error as Error).message}\n`);
      }
      process.stderr.write(`cei compile: stopped by ${signal}; ${outFile} was not written\n`);
      process.exit(signal === "SIGINT" ? 130 : 143);
    };
    process.on(signal, handler);
    return () => process.off(signal, handler);
  });
  return () => handlers.forEach((off) => off());
}

/** What the compile changed against the snapshot it replaced, as `cei diff --summary` says it. */
function changesText(out: string, changes: SnapshotDiff | null | undefined): string {
  if (changes === null) return `no earlier snapshot at ${out}\n`;
  if (changes === undefined) return `the earlier snapshot at ${out} is of another format version: no summary of changes\n`;
  return `against the earlier snapshot at ${out}:\n${summariseDiff(changes)}`;
}

export function registerCompile(program: Command): void {
  program
    .command("compile")
    .description("Validate curated JSONL sources and compile them into one read-only SQLite snapshot.")
    .requiredOption("--source <dir>", "folder holding the family files (projects.jsonl, tokens.jsonl, ...)")
    .requiredOption("--out <file>", "snapshot file to write (replaced atomically, only on success)")
    .option("--as-of <datetime>", "reference time that eligibility and snapshots are relative to (ISO 8601 with a zone; default: the newest observation in the sources)", parseZonedDateTime)
    .option("--allow-stale", "compile even when a precomputed snapshot is already stale at the reference time (printed as a warning)")
    .option("--allow-shrink", `replace the snapshot at --out even when a family or precomputed snapshot loses more than ${SHRINK_LIMIT * 100}% of its records or becomes empty`)
    .option("--max-problems <n>", "problems listed of each kind; every kind is counted in a summary", parseMaxProblems, MAX_PROBLEMS_PER_KIND)
    .option("--x-secret-file <file>", `file holding the secret behind X account ids (default: env CEI_X_SECRET, else <source>/${SOURCE_X_SECRET_FILE})`)
    .addHelpText("after", "\nOn bad input, the problems are printed to stderr as `file:line: path: message` (at most --max-problems of each\n" +
      "kind, then a summary of every kind with its count and first locations) and the exit code is 1.\n" +
      "On success, what changed against the snapshot replaced at --out is printed (as `cei diff --summary`).")
    .action(async (flags: CompileFlags) => {
      let xSecret: string | undefined;
      try {
        xSecret = readXSecret(flags.xSecretFile, join(flags.source, SOURCE_X_SECRET_FILE));
      } catch (error) {
        process.stderr.write(`cei compile: ${(error as Error).message}\n`);
        process.exitCode = 1;
        return;
      }
      const onProgress = process.stderr.isTTY ? (message: string) => process.stderr.write(`… ${message}\n`) : undefined;
      const stopListening = removeScratchOnSignals(flags.out);
      const result = await compileSnapshot({
        sourceDir: flags.source,
        outFile: flags.out,
        ...(flags.asOf === undefined ? {} : { compiledAt: flags.asOf }),
        now: new Date(),
        allowStale: flags.allowStale === true,
        allowShrink: flags.allowShrink === true,
        maxProblems: flags.maxProblems,
        describeChanges: true,
        ...(xSecret === undefined ? {} : { xSecret }),
        ...(onProgress === undefined ? {} : { onProgress }),
      }).finally(stopListening);
      if (!result.ok) {
        // Set first: should stderr's reader go away mid-list, the exit is still 1 (main.ts).
        process.exitCode = 1;
        if (result.problems.length > 0) process.stderr.write(result.problems.join("\n") + "\n");
        if (result.summary !== undefined) process.stderr.write(summaryText(result.summary));
        if (result.changes !== undefined) process.stderr.write(`what would change in ${flags.out}:\n${summariseDiff(result.changes)}`);
        process.stderr.write(failureLine(flags.out, result.problems, result.summary));
        return;
      }
      for (const warning of result.warnings) process.stderr.write(`warning: ${warning}\n`);
      const reference = `${result.referenceTime.toISOString()} (${flags.asOf === undefined ? "the newest observation in the sources" : "--as-of"})`;
      process.stdout.write(`compiled ${flags.out} (content_hash ${String(result.manifest.content_hash)}, reference time ${reference})\n`);
      process.stdout.write(publishedText(publishedOf(result.manifest)));
      const notOffered = operationIds.filter((operation) => !isOffered(operation, result.manifest.curated as Record<string, number>));
      if (notOffered.length > 0) process.stdout.write(`not offered (no curated record feeds them; they answer 404 as an unknown route): ${notOffered.join(", ")}\n`);
      process.stdout.write(changesText(flags.out, result.changes));
    });
}
