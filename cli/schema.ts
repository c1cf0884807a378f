// `cei schema`: one JSON Schema per family file, derived from the same zod schemas the
// compiler validates with.
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import type { Command } from "commander";
import { familyJsonSchemas } from "../compiler/json-schema.ts";

export function registerSchema(program: Command): void {
  program
    .command("schema")
    .description("Write the JSON Schema of every source family (<family>.schema.json) for curators' editors and tools.")
    .requiredOption("--out <dir>", "folder to write the schema files into (created if missing)")
    .action((flags: { out: string }) => {
      mkdirSync(flags.out, { recursive: true });
      for (const { file, schema } of familyJsonSchemas()) {
        const target = join(flags.out, file.replace(/\.jsonl$/, ".schema.json"));
        writeFileSync(target, JSON.stringify(schema, null, 2) + "\n");
        process.stdout.write(`${target}\n`);
      }
    });
}
