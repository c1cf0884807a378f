// Regenerates the field tables of docs/source-format.md from the JSON Schema `cei schema` writes,
// which is derived from the compiler's own zod schemas: every block between `<!-- fields:NAME -->`
// and `<!-- /fields -->` is rewritten in place (NAME is a family, or `internal` for the internal
// fields); nothing else in the file changes. Run with `npx tsx docs/source-format-tables.ts`;
// test/compiler/source-format-doc.test.ts fails while the page differs from what this writes.
import { readFileSync, writeFileSync } from "node:fs";
import { fileURLToPath, pathToFileURL } from "node:url";
import { z } from "zod";
import { entityId, internalFields, prose, slug, snakeCase, text } from "../compiler/families/source-fields.ts";
import { familyJsonSchemas } from "../compiler/json-schema.ts";

type Schema = Record<string, unknown>;
interface Row {
  /** The field's path; for the row standing for an object's internal fields, the object's path and a dot. */
  field: string;
  internal?: true;
  type: string;
  required: boolean;
  description: string;
}

export const SOURCE_FORMAT_MD = fileURLToPath(new URL("./source-format.md", import.meta.url));

const patternOf = (schema: z.ZodType): string => (z.toJSONSchema(schema, { io: "input" }) as { pattern: string }).pattern;

/** Patterns of the building blocks the page's "Common formats" explains: named, not spelt out. */
const namedPatterns = new Map([
  [patternOf(entityId), "id"],
  [patternOf(slug), "slug"],
  [patternOf(text(1)), "text"],
  [patternOf(prose(1)), "prose"],
  [patternOf(snakeCase(1)), "snake_case"],
]);
const INTERNAL = new Set(Object.keys(internalFields));

const code = (value: unknown): string => `\`${typeof value === "string" ? value : JSON.stringify(value)}\``;
const branches = (schema: Schema): Schema[] => ((schema.anyOf ?? schema.oneOf ?? []) as Schema[]);

function typeOf(schema: Schema): string {
  // Branches beside a type (a role's "a project or a fund") constrain it; without one they are the type.
  if (schema.type === undefined && branches(schema).length > 0) return [...new Set(branches(schema).map(typeOf))].join(" or ");
  if (Array.isArray(schema.type)) return schema.type.map((type) => typeOf({ ...schema, type })).join(" or ");
  if (schema.const !== undefined) return code(schema.const);
  if (Array.isArray(schema.enum)) return `one of ${schema.enum.map(code).join(", ")}`;
  switch (schema.type) {
    case "null":
      return "`null`";
    case "string":
      return stringType(schema);
    case "number":
    case "integer":
      return numberType(schema);
    case "array": {
      const items = typeOf(schema.items as Schema);
      return `array${schema.maxItems === undefined ? "" : ` (≤ ${String(schema.maxItems)})`}${items === "any JSON value" ? "" : ` of ${items}`}`;
    }
    case "object":
      return typeof schema.additionalProperties === "object" ? `object of ${typeOf(schema.additionalProperties as Schema)} values` : "object";
    case "boolean":
      return "boolean";
    default:
      return "any JSON value";
  }
}

function stringType(schema: Schema): string {
  if (schema.format === "date-time") return "date-time";
  if (schema.format === "date") return "date";
  if (schema.format === "uri") return "http(s) URL";
  const named = typeof schema.pattern === "string" ? namedPatterns.get(schema.pattern) : undefined;
  const length = schema.maxLength === undefined ? "" : ` ≤ ${String(schema.maxLength)}`;
  if (named !== undefined) return `${named}${length}`;
  return typeof schema.pattern === "string" ? `string ${code(schema.pattern)}` : `string${length}`;
}

function numberType(schema: Schema): string {
  const { minimum, maximum } = schema as { minimum?: number; maximum?: number };
  const bounded = maximum !== undefined && maximum < Number.MAX_SAFE_INTEGER;
  const range = minimum !== undefined && bounded ? ` ${minimum}-${maximum}` : minimum !== undefined ? ` ≥ ${minimum}` : bounded ? ` ≤ ${maximum}` : "";
  return `${String(schema.type)}${range}`;
}

/** The object a property holds, directly, when nullable, or as array items; several for a union of objects. */
function objectsIn(schema: Schema): Array<{ object: Schema; suffix: string }> {
  if (schema.type === "array") return objectsIn(schema.items as Schema).map(({ object, suffix }) => ({ object, suffix: `[]${suffix}` }));
  if (schema.type === "object" && schema.properties !== undefined) return [{ object: schema, suffix: "" }];
  return branches(schema).flatMap(objectsIn);
}

/** One row per field, nested fields after their parent; the internal fields of nested objects as one row. */
function rows(object: Schema, prefix: string, skipInternal: boolean): Row[] {
  const required = new Set((object.required ?? []) as string[]);
  const properties = Object.entries(object.properties as Record<string, Schema>);
  const result: Row[] = [];
  for (const [name, property] of properties) {
    if (skipInternal && INTERNAL.has(name)) continue;
    const path = `${prefix}${name}`;
    result.push({ field: path, type: typeOf(property), required: required.has(name), description: String(property.description) });
    for (const { object: nested, suffix } of objectsIn(property)) result.push(...rows(nested, `${path}${suffix}.`, true));
  }
  if (skipInternal && [...INTERNAL].every((name) => properties.some(([key]) => key === name))) {
    result.push({ field: prefix, internal: true, type: "", required: false, description: "The [internal fields](#internal-fields): accepted and never written." });
  }
  return result;
}

const cell = (value: string): string => value.replaceAll("|", "\\|").replaceAll("\n", " ");

function table(rowsOfTable: readonly Row[]): string {
  const lines = ["| field | type | required | meaning |", "|---|---|---|---|"];
  for (const row of rowsOfTable) {
    const field = row.internal === true ? `${row.field === "" ? "" : code(row.field)}… internal fields` : code(row.field);
    lines.push(`| ${field} | ${cell(row.type)} | ${row.required ? "**required**" : ""} | ${cell(row.description)} |`);
  }
  return lines.join("\n");
}

/** Every generated block, by marker name. */
export function fieldTables(): Map<string, string> {
  const schemas = familyJsonSchemas();
  const tables = new Map<string, string>();
  for (const { family, schema } of schemas) tables.set(family, table(rows(schema, "", true)));
  const projects = schemas.find(({ family }) => family === "projects")!.schema;
  tables.set("internal", table(rows({ ...projects, required: [] }, "", false).filter((row) => INTERNAL.has(row.field.split(/[.[]/)[0]!))));
  return tables;
}

/** Replaces the body of every marker pair; every table must have exactly one marker and vice versa. */
export function rewriteFieldTables(markdown: string, tables: ReadonlyMap<string, string>): string {
  const used = new Set<string>();
  const result = markdown.replace(/<!-- fields:([a-z_]+) -->\n[\s\S]*?<!-- \/fields -->/g, (_match, name: string) => {
    const body = tables.get(name);
    if (body === undefined) throw new Error(`docs/source-format.md has a marker for an unknown table "${name}"`);
    if (used.has(name)) throw new Error(`docs/source-format.md has two markers for "${name}"`);
    used.add(name);
    return `<!-- fields:${name} -->\n${body}\n<!-- /fields -->`;
  });
  const missing = [...tables.keys()].filter((name) => !used.has(name));
  if (missing.length > 0) throw new Error(`docs/source-format.md has no marker for: ${missing.join(", ")}`);
  return result;
}

if (process.argv[1] !== undefined && import.meta.url === pathToFileURL(process.argv[1]).href) {
  const tables = fieldTables();
  writeFileSync(SOURCE_FORMAT_MD, rewriteFieldTables(readFileSync(SOURCE_FORMAT_MD, "utf8"), tables));
  console.log(`docs/source-format.md: ${tables.size} field tables written`);
}
