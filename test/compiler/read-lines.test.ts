// The compiler's line reader must number lines exactly as node:readline does (the numbers in
// `file:line:` problems), whatever the chunk boundaries: CRLF, lone CR, multi-byte characters.
import { createReadStream, mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createInterface } from "node:readline";
import { expect, test } from "vitest";
import { readLines } from "../../compiler/stage-families.ts";

const dir = mkdtempSync(join(tmpdir(), "cei-lines-"));

async function readlineLines(path: string): Promise<string[]> {
  const lines: string[] = [];
  for await (const line of createInterface({ input: createReadStream(path, { encoding: "utf8" }), crlfDelay: Infinity })) lines.push(line);
  return lines;
}

const cases: Record<string, string> = {
  "LF, trailing newline": '{"a":1}\n{"b":2}\n',
  "no trailing newline": '{"a":1}\n{"b":2}',
  "CRLF": '{"a":1}\r\n{"b":2}\r\n\r\n{"c":3}\r\n',
  "lone CR": '{"a":1}\r{"b":2}\r\n{"c":3}\r',
  "blank lines": "\n\n{}\n\n",
  "multi-byte characters": '{"name":"Zoë — 東京 🚀"}\n{"name":"ça"}\r\n{"name":"é"}',
  "empty file": "",
};

test.each(Object.entries(cases))("%s: the same lines as readline, at every chunk size", async (name, text) => {
  const path = join(dir, `${name.replace(/\W+/g, "-")}.jsonl`);
  writeFileSync(path, text);
  const expected = await readlineLines(path);
  for (const chunk of [1, 2, 3, 5, 7, 64, 1 << 20]) expect([...readLines(path, chunk)], `chunk ${chunk}`).toEqual(expected);
});
