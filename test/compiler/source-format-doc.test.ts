// Keeps docs/source-format.md true: its field tables are exactly what docs/source-format-tables.ts
// generates from the compiler's schemas, and they state the rules a curator needs.
import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { families } from "../../compiler/families/index.ts";
import { cryptoAngles } from "../../compiler/families/stocks/source.ts";
import { familyJsonSchemas } from "../../compiler/json-schema.ts";
import { fieldTables, rewriteFieldTables, SOURCE_FORMAT_MD } from "../../docs/source-format-tables.ts";

const page = readFileSync(SOURCE_FORMAT_MD, "utf8");
const tables = fieldTables();

/** The cells of the row of `field` in `table`: [field, type, required, meaning]. */
function row(table: string, field: string): string[] {
  const line = tables
    .get(table)!
    .split("\n")
    .find((candidate) => candidate.startsWith(`| \`${field}\` |`));
  expect(line, `${table}: a row for ${field}`).toBeDefined();
  return line!.split(/(?<!\\)\|/).slice(1, -1).map((cell) => cell.trim());
}

describe("docs/source-format.md", () => {
  it("holds exactly the field tables `npx tsx docs/source-format-tables.ts` writes", () => {
    expect(page).toBe(rewriteFieldTables(page, tables));
  });

  it("has one table per family and one for the internal fields", () => {
    expect([...tables.keys()].sort()).toEqual([...families.map((f) => f.family), "internal"].sort());
  });

  it("marks every field the schema requires as required, and no other", () => {
    for (const { family, schema } of familyJsonSchemas()) {
      const properties = Object.keys(schema.properties as object);
      const required = new Set(schema.required as string[]);
      for (const name of properties.filter((name) => !["sources", "provider_ids", "evidence", "raw", "media", "curator_notes", "ingested_at"].includes(name))) {
        expect(row(family, name)[2], `${family}.${name}`).toBe(required.has(name) ? "**required**" : "");
      }
    }
  });

  it("states the rules curators could not find: arrays, numbers, enum values, patterns, nullable URLs, BOMs", () => {
    expect(row("internal", "media")[1]).toBe("array");
    expect(row("projects", "links")[1]).toBe("array");
    expect(row("trending", "heat")[1]).toBe("number");
    expect(row("stocks", "crypto_angle")[1]).toBe(`one of ${cryptoAngles.map((angle) => `\`${angle}\``).join(", ")}`);
    expect(row("stocks", "ticker")[1]).toBe("string `^[A-Z0-9.-]{1,16}$`");
    expect(row("tokens", "symbol")[1]).toBe("string `^[A-Za-z0-9.$-]{1,20}$`");
    expect(row("x_accounts", "handle")[1]).toBe("string `^@?[A-Za-z0-9_]{1,15}$`");
    expect(row("news", "language")[1]).toBe("string `^[a-z]{2,3}(?:-[A-Z]{2})?$`");
    for (const [table, field] of [["events", "website_url"], ["projects", "features[].primary_url"], ["projects", "features[].docs_url"], ["projects", "features[].app_url"]] as const) {
      expect(row(table, field)[1], field).toBe("http(s) URL or `null`");
    }
    expect(row("funds", "website")[1]).toBe("string");
    expect(page).toContain("**without a byte order mark (BOM)**");
  });
});
