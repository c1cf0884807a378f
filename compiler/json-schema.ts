// JSON Schema of every source family, derived from its zod schema (what curators may write:
// io "input", so defaulted fields are optional). Descriptions, the URL pattern and the curated-text
// pattern are zod metadata on the same schemas, so an editor refuses what the compiler refuses on a
// single record (docs/source-format.md lists the rules no JSON Schema can state).
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { z } from "zod";
import { families } from "./families/index.ts";

/** A name, not an address: nothing is served there. */
export const schemaId = (family: string): string => `urn:cei:source-format:${family}`;

export const schemaFileName = (file: string): string => file.replace(/\.jsonl$/, ".schema.json");

export function familyJsonSchemas(): Array<{ family: string; file: string; schema: Record<string, unknown> }> {
  return families.map(({ family, file, schema }) => {
    const { $schema, ...rest } = z.toJSONSchema(schema, { io: "input", unrepresentable: "any" });
    return {
      family,
      file,
      schema: { $schema, $id: schemaId(family), title: `${family} (${file}, one JSON object per line)`, ...rest },
    };
  });
}

/** Writes `<family>.schema.json` for every family into `outDir` (created if missing); returns the paths written. */
export function writeFamilyJsonSchemas(outDir: string): string[] {
  mkdirSync(outDir, { recursive: true });
  return familyJsonSchemas().map(({ file, schema }) => {
    const target = join(outDir, schemaFileName(file));
    writeFileSync(target, JSON.stringify(schema, null, 2) + "\n");
    return target;
  });
}
