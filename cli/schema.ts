// `cei schema`: one JSON Schema per family file, derived from the same zod schemas the
// compiler validates with.
import type { Command } from "commander";
import { writeFamilyJsonSchemas } from "../compiler/json-schema.ts";

export function registerSchema(program: Command): void {
  program
    .command("schema")
    .description("Write the JSON Schema of every source family (<family>.schema.json) for curators' editors and tools.")
    .requiredOption("--out <dir>", "folder to write the schema files into (created if missing)")
    .action((flags: { out: string }) => {
      for (const target of writeFamilyJsonSchemas(flags.out)) process.stdout.write(`${target}\n`);
    });
}
