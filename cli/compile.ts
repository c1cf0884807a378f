// `cei compile`: curated JSONL sources to a read-only snapshot file.
import { readFileSync } from "node:fs";
import type { Command } from "commander";
import { compileSnapshot } from "../compiler/compile.ts";

interface CompileFlags {
  source: string;
  out: string;
  asOf?: string;
  xSecretFile?: string;
}

/** --x-secret-file wins over env CEI_X_SECRET; a trailing newline in the file is not part of the secret. */
function readXSecret(file: string | undefined): string | undefined {
  if (file !== undefined) return readFileSync(file, "utf8").replace(/\r?\n$/, "");
  const fromEnv = process.env.CEI_X_SECRET;
  return fromEnv === undefined || fromEnv === "" ? undefined : fromEnv;
}

export function registerCompile(program: Command): void {
  program
    .command("compile")
    .description("Validate curated JSONL sources and compile them into one read-only SQLite snapshot.")
    .requiredOption("--source <dir>", "folder holding the family files (projects.jsonl, tokens.jsonl, ...)")
    .requiredOption("--out <file>", "snapshot file to write (replaced atomically, only on success)")
    .option("--as-of <datetime>", "compile time that eligibility and snapshots are relative to (ISO 8601; default: now)")
    .option("--x-secret-file <file>", "file holding the secret behind X account ids (default: env CEI_X_SECRET)")
    .addHelpText("after", "\nOn bad input, every problem is printed to stderr as `file:line: path: message` and the exit code is 1.")
    .action(async (flags: CompileFlags) => {
      const compiledAt = flags.asOf === undefined ? new Date() : new Date(flags.asOf);
      if (Number.isNaN(compiledAt.getTime())) {
        process.stderr.write(`cei compile: --as-of: expected an ISO 8601 date-time, got ${JSON.stringify(flags.asOf)}\n`);
        process.exitCode = 1;
        return;
      }
      let xSecret: string | undefined;
      try {
        xSecret = readXSecret(flags.xSecretFile);
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
        ...(xSecret === undefined ? {} : { xSecret }),
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
