// The layout's rules, checked on the source itself: the snapshot contract sits below both halves
// (compiler/ and server/ import snapshot/, never each other, and snapshot/ imports neither), no
// import cycle anywhere in the product's code, and a `_`-prefixed file is private to its folder
// (imported only from that folder or the folders below it).
import { readdirSync, readFileSync } from "node:fs";
import { dirname, join, relative, resolve, sep } from "node:path";
import { fileURLToPath } from "node:url";
import { expect, test } from "vitest";

const ROOT = fileURLToPath(new URL("../../", import.meta.url));
const PRODUCT = ["bin", "cli", "clients", "compiler", "data", "docs", "scripts", "server", "snapshot"];
const SKIP = new Set(["node_modules", "dist", ".git"]);
// Static, dynamic and type-only imports of a relative path.
const IMPORT = /(?:from|import)\s*\(?\s*["'](\.{1,2}\/[^"']+)["']/g;

function sources(folder: string): string[] {
  const found: string[] = [];
  for (const entry of readdirSync(folder, { withFileTypes: true })) {
    if (SKIP.has(entry.name)) continue;
    const path = join(folder, entry.name);
    if (entry.isDirectory()) found.push(...sources(path));
    else if (/\.(ts|mts|mjs|js)$/.test(entry.name)) found.push(path);
  }
  return found;
}

/** Every product file (and, for the privacy rule, every test and bench file) with the files it imports. */
function importGraph(folders: string[]): Map<string, string[]> {
  const graph = new Map<string, string[]>();
  for (const file of folders.flatMap((folder) => sources(join(ROOT, folder)))) {
    const text = readFileSync(file, "utf8");
    graph.set(file, [...text.matchAll(IMPORT)].map((match) => resolve(dirname(file), match[1]!)));
  }
  return graph;
}

const name = (file: string) => relative(ROOT, file);
const top = (file: string) => name(file).split(sep)[0];

test("compiler/ and server/ import snapshot/, never each other; snapshot/ imports neither", () => {
  const crossings: string[] = [];
  const forbidden: Record<string, string[]> = { compiler: ["server"], server: ["compiler"], snapshot: ["compiler", "server"] };
  for (const [file, imports] of importGraph(["compiler", "server", "snapshot"])) {
    for (const target of imports) if (forbidden[top(file)!]?.includes(top(target)!)) crossings.push(`${name(file)} -> ${name(target)}`);
  }
  expect(crossings).toEqual([]);
});

test("no import cycle in the product's code", () => {
  const graph = importGraph(PRODUCT);
  // Tarjan's strongly connected components: one of more than one file (or a file importing itself) is a cycle.
  let counter = 0;
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const cycles: string[][] = [];
  const visit = (file: string): void => {
    index.set(file, counter);
    low.set(file, counter++);
    stack.push(file);
    onStack.add(file);
    for (const target of graph.get(file)!.filter((t) => graph.has(t))) {
      if (!index.has(target)) {
        visit(target);
        low.set(file, Math.min(low.get(file)!, low.get(target)!));
      } else if (onStack.has(target)) {
        low.set(file, Math.min(low.get(file)!, index.get(target)!));
      }
    }
    if (low.get(file) !== index.get(file)) return;
    const component: string[] = [];
    let member: string;
    do {
      member = stack.pop()!;
      onStack.delete(member);
      component.push(name(member));
    } while (member !== file);
    if (component.length > 1 || graph.get(file)!.includes(file)) cycles.push(component.sort());
  };
  for (const file of graph.keys()) if (!index.has(file)) visit(file);
  expect(graph.size).toBeGreaterThan(100);
  expect(cycles).toEqual([]);
});

test("a _ file is imported only from its own folder or below it", () => {
  const outside: string[] = [];
  for (const [file, imports] of importGraph([...PRODUCT, "test", "bench"])) {
    for (const target of imports) {
      if (!target.split(sep).pop()!.startsWith("_")) continue;
      if (!(dirname(file) + sep).startsWith(dirname(target) + sep)) outside.push(`${name(file)} -> ${name(target)}`);
    }
  }
  expect(outside).toEqual([]);
});
