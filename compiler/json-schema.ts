// JSON Schema of every source family, derived from its zod schema (what curators may write:
// io "input", so defaulted fields are optional).
import { z } from "zod";
import { familyFiles } from "./families/index.ts";

export function familyJsonSchemas(): Array<{ family: string; file: string; schema: Record<string, unknown> }> {
  return familyFiles.map(({ family, file, schema }) => ({
    family,
    file,
    schema: {
      title: `${family} (${file}, one JSON object per line)`,
      ...z.toJSONSchema(schema, { io: "input", unrepresentable: "any" }),
    } as Record<string, unknown>,
  }));
}
