// What a compile accepts and never publishes, said at compile time: for each family, the fields
// its schema accepts and the compiler drops (the "Accepted and never written" fields and the
// internal fields of docs/source-format.md), and how many valid records (or list items) carry
// each. The paths come from the same schemas the field tables are generated from; the counts are
// taken while records are validated (validate-lines.ts), summed per family into the manifest's
// `not_published`.
import { z } from "zod";
import { familyNamed } from "./families/index.ts";

/** How a field that is accepted and dropped describes itself (source-fields.ts, and each family's source.ts). */
const NEVER_WRITTEN = /^(?:Accepted and never written|Internal, never written)\b/;

type Schema = Record<string, unknown>;

/** Where the dropped fields are in a record: fields of this object, and objects or lists of objects below it. */
interface Tree {
  fields: Array<[key: string, path: string]>;
  below: Array<{ key: string; list: boolean; tree: Tree }>;
}

function treeOf(schema: Schema, path: string): Tree | undefined {
  const tree: Tree = { fields: [], below: [] };
  const objects = (node: Schema): Schema[] =>
    [node, ...((node.anyOf ?? node.oneOf ?? []) as Schema[])].filter((branch) => branch.properties !== undefined);
  for (const object of objects(schema)) {
    for (const [key, property] of Object.entries(object.properties as Record<string, Schema>)) {
      const field = path === "" ? key : `${path}.${key}`;
      if (typeof property.description === "string" && NEVER_WRITTEN.test(property.description)) {
        tree.fields.push([key, field]);
        continue;
      }
      const items = [property, ...((property.anyOf ?? []) as Schema[])].find((branch) => branch.items !== undefined)?.items as Schema | undefined;
      const sub = items === undefined ? treeOf(property, field) : treeOf(items, `${field}[]`);
      if (sub !== undefined) tree.below.push({ key, list: items !== undefined, tree: sub });
    }
  }
  return tree.fields.length > 0 || tree.below.length > 0 ? tree : undefined;
}

const trees = new Map<string, Tree | undefined>();

/** The family's dropped fields, as paths (`description`, `features[].sources`). */
export function unpublishedPaths(family: string): string[] {
  const paths: string[] = [];
  const walk = (tree: Tree | undefined): void => {
    if (tree === undefined) return;
    for (const [, path] of tree.fields) paths.push(path);
    for (const { tree: sub } of tree.below) walk(sub);
  };
  walk(treeFor(family));
  return paths;
}

function treeFor(family: string): Tree | undefined {
  if (!trees.has(family)) {
    const schema = z.toJSONSchema(familyNamed(family).schema, { io: "input", unrepresentable: "any" }) as Schema;
    trees.set(family, treeOf(schema, ""));
  }
  return trees.get(family);
}

/** Counts, into `counts`, each dropped field that one valid record (or its list items) carries. */
export function countUnpublished(family: string, record: unknown, counts: Map<string, number>): void {
  const tree = treeFor(family);
  if (tree !== undefined) count(record, tree, counts);
}

function count(value: unknown, tree: Tree, counts: Map<string, number>): void {
  if (value === null || typeof value !== "object") return;
  const object = value as Record<string, unknown>;
  for (const [key, path] of tree.fields) if (object[key] !== undefined) counts.set(path, (counts.get(path) ?? 0) + 1);
  for (const { key, list, tree: sub } of tree.below) {
    const below = object[key];
    if (!list) count(below, sub, counts);
    else if (Array.isArray(below)) for (const item of below) count(item, sub, counts);
  }
}
