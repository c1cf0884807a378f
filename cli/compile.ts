// `cei compile`: curated JSONL sources to a read-only snapshot file.
import { randomBytes } from "node:crypto";
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import type { Command } from "commander";
import { compileSnapshot } from "../compiler/compile.ts";

interface CompileFlags {
  source: string;
  out: string;
  asOf?: string;
  xSecretFile?: string;
}

/**
 * --x-secret-file wins over env CEI_X_SECRET; a trailing newline in the file is not part of the
 * secret. With neither, the secret lives in `.cei-x-secret` beside the output, created on first
 * use, so that X account ids stay stable from one compile to the next without any set-up.
 */
export function readXSecret(file: string | undefined, out: string): string {
  const fromEnv = process.env.CEI_X_SECRET;
  if (file === undefined && fromEnv !== undefined && fromEnv !== "") return fromEnv;
  const path = file ?? join(dirname(out), ".cei-x-secret");
  if (file === undefined && !existsSync(path)) {
    writeFileSync(path, randomBytes(32).toString("hex") + "\n", { mode: 0o600, flag: "wx" });
    process.stderr.write(`cei compile: created the X id secret ${path}; keep it to keep X account ids stable\n`);
  }
  return readFileSync(path, "utf8").replace(/\r?\n$/, "");
}

export function registerCompile(program: Command): void {
  program
    .command("compile")
    .description("Validate curated JSONL sources and compile them into one read-only SQLite snapshot.")
    .requiredOption("--source <dir>", "folder holding the family files (projects.jsonl, tokens.jsonl, ...)")
    .requiredOption("--out <file>", "snapshot file to write (replaced atomically, only on success)")
    .option("--as-of <datetime>", "compile time that eligibility and snapshots are relative to (ISO 8601; default: now)")
    .option("--x-secret-file <file>", "file holding the secret behind X account ids (default: env CEI_X_SECRET, else .cei-x-secret beside --out, created if missing)")
    .addHelpText("after", "\nOn bad input, every problem is printed to stderr as `file:line: path: message` and the exit code is 1.")
    .action(async (flags: CompileFlags) => {
      const compiledAt = flags.asOf === undefined ? new Date() : new Date(flags.asOf);
      if (Number.isNaN(compiledAt.getTime())) {
        process.stderr.write(`cei compile: --as-of: expected an ISO 8601 date-time, got ${JSON.stringify(flags.asOf)}\n`);
        process.exitCode = 1;
        return;
      }
      let xSecret: string;
      try {
        xSecret = readXSecret(flags.xSecretFile, flags.out);
      } catch (error) {
        process.stderr.write(`cei compile: --x-secret-file: ${(error as Error).message}\n`);
        process.exitCode = 1;
        return;
      }
      const onProgress = process.stderr.isTTY ? (message: string) => process.stderr.write(`… ${message}\n`) : undefined;
      const result = await compileSnapshot({
        sourceDir: flags.source,
        outFile: flags.out,
        compiledAt,
        xSecret,
        ...(onProgress === undefined ? {} : { onProgress }),
      });
      if (!result.ok) {
        process.stderr.write(result.problems.join("\n") + "\n");
        process.stderr.write(`cei compile: ${result.problems.length} problem(s); ${flags.out} was not written\n`);
        process.exitCode = 1;
        return;
      }
      process.stdout.write(`compiled ${flags.out} (content_hash ${String(result.manifest.content_hash)})\n`);
    });
}
