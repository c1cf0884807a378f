// zod to JSON Schema (draft 2020-12, the dialect of OpenAPI 3.1) with zod 4's own converter:
// the document holds exactly what the validators check.
import { z } from "zod";

export type JsonSchema = Record<string, unknown>;

/** Named schemas, converted together so that they refer to each other as components. */
export function componentSchemas(named: ReadonlyArray<readonly [string, z.ZodType]>): Record<string, JsonSchema> {
  const registry = z.registry<{ id: string }>();
  for (const [id, schema] of named) registry.add(schema, { id });
  const { schemas } = z.toJSONSchema(registry, { io: "output", uri: (id) => `#/components/schemas/${id}` });
  const out: Record<string, JsonSchema> = {};
  for (const [id] of named) out[id] = _withoutDialect(schemas[id] as JsonSchema);
  return out;
}

/**
 * One schema inline. Requests are described as the caller writes them (`input`: optional fields
 * with defaults are not required); query parameters by the value they stand for (`output`: a
 * `limit` is an integer with its range, although it travels as digits in the query string).
 */
export function inlineSchema(schema: z.ZodType, io: "input" | "output"): JsonSchema {
  return _withoutDialect(z.toJSONSchema(schema, { io, unrepresentable: "throw" }) as JsonSchema);
}

/** The properties of a strict object, each with whether the caller must send it. */
export function objectFields(schema: z.ZodType): Array<{ name: string; required: boolean; schema: JsonSchema }> {
  const input = inlineSchema(schema, "input");
  const output = inlineSchema(schema, "output");
  const required = new Set((input.required as string[] | undefined) ?? []);
  const properties = (output.properties ?? {}) as Record<string, JsonSchema>;
  return Object.entries(properties).map(([name, property]) => ({ name, required: required.has(name), schema: property }));
}

/** The document is the schemas' one base: a `$schema` or `$id` of their own would change how refs resolve. */
function _withoutDialect(schema: JsonSchema): JsonSchema {
  const { $schema: _dialect, $id: _id, ...rest } = schema;
  return rest;
}
