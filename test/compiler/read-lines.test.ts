// The compiler's line reader must number lines exactly as node:readline does (the numbers in
// `file:line:` problems), whatever the chunk boundaries: CRLF, lone CR, multi-byte characters.
import { closeSync, createReadStream, mkdirSync, mkdtempSync, openSync, rmSync, writeFileSync, writeSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createInterface } from "node:readline";
import { afterAll, expect, test } from "vitest";
import { compileSnapshot } from "../../compiler/compile.ts";
import { InvalidUtf8Line, OverlongLine, readLines } from "../../compiler/read-lines.ts";
import { writeSources } from "../_support/sources.ts";

const dir = mkdtempSync(join(tmpdir(), "cei-lines-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

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

test("a line over the maximum comes as one OverlongLine in its place, and no longer line is ever held", () => {
  const path = join(dir, "overlong.jsonl");
  const long = "x".repeat(100);
  writeFileSync(path, `{"a":1}\n${long}\r\n{"b":2}\n${long}é${long}\n{"c":3}\r${long}`);
  for (const chunk of [1, 7, 16, 64, 1 << 20]) {
    const lines = [...readLines(path, chunk, 50)];
    expect(lines.map((l) => (l instanceof OverlongLine ? "(overlong)" : l)), `chunk ${chunk}`).toEqual(
      ['{"a":1}', "(overlong)", '{"b":2}', "(overlong)", '{"c":3}', "(overlong)"],
    );
  }
});

test("a 17 MiB line is a file:line problem and the lines after it keep their numbers", async () => {
  const source = join(dir, "long-line");
  mkdirSync(source);
  writeSources(source, { "funds.jsonl": "" });
  // Written a MiB at a time: the test never holds the line whole either.
  const fd = openSync(join(source, "funds.jsonl"), "w");
  writeSync(fd, '{"id":"f1","slug":"f-1","name":"F1","fund_type":"vc","score":1,"score_updated_at":"2026-03-01T00:00:00Z"}\n{"id":"f2","name":"');
  const mib = "y".repeat(1 << 20);
  for (let i = 0; i < 17; i += 1) writeSync(fd, mib);
  writeSync(fd, '"}\n{"id":"f3"}\n');
  closeSync(fd);
  const result = await compileSnapshot({ sourceDir: source, outFile: join(dir, "long-line.db"), compiledAt: new Date("2026-03-01T12:00:00Z") });
  expect(result.ok).toBe(false);
  expect(!result.ok && result.problems[0]).toBe("funds.jsonl:2: (root): line longer than 16 MiB, the maximum: split the record or shorten its text");
  expect(!result.ok && result.problems[1]).toMatch(/^funds\.jsonl:3: /);
});

test("a line that is not UTF-8 comes as an InvalidUtf8Line naming its first bad byte, at every chunk size", () => {
  const path = join(dir, "latin1.jsonl");
  const bytes = Buffer.concat([
    Buffer.from('{"a":"é"}\r\n'), // line 1: valid, two-byte é
    Buffer.from('{"name":"Gamm'), Buffer.from([0xe9]), Buffer.from(' Labs"}\r'), // line 2: Latin-1 é at byte 13 of the line
    Buffer.from('{"b":"'), Buffer.from([0xe6, 0x9d]), Buffer.from('"}\n'), // line 3: a 3-byte sequence cut short
    Buffer.from('{"c":"東"}\n'), // line 4: valid
    Buffer.from([0xff]), // line 5: a byte UTF-8 never uses, and no line break
  ]);
  writeFileSync(path, bytes);
  const shown = (l: string | OverlongLine | InvalidUtf8Line) => (l instanceof InvalidUtf8Line ? l.at : l);
  for (const chunk of [1, 2, 3, 5, 7, 64, 1 << 20]) {
    expect([...readLines(path, chunk)].map(shown), `chunk ${chunk}`).toEqual([
      '{"a":"é"}',
      { lineOffset: 13, fileOffset: 25, byte: 0xe9 },
      { lineOffset: 6, fileOffset: 40, byte: 0xe6 },
      '{"c":"東"}',
      { lineOffset: 0, fileOffset: 57, byte: 0xff },
    ]);
  }
});

test("invalid UTF-8 and a byte order mark are file:line problems that say so", async () => {
  const source = join(dir, "bytes");
  mkdirSync(source);
  const fund = (id: string, name: string) => `{"id":"${id}","slug":"${id}","name":"${name}","fund_type":"vc","score":1,"score_updated_at":"2026-03-01T00:00:00Z"}\n`;
  writeSources(source, { "funds.jsonl": Buffer.concat([
    Buffer.from("\uFEFF" + fund("f1", "One")),
    Buffer.from(fund("f2", "Gamm_ Labs").replace("_", "\u0000")).map((b) => (b === 0 ? 0xe9 : b)),
    Buffer.from(fund("f3", "Three")),
    Buffer.from("\uFEFF" + fund("f4", "Four")),
  ]) });
  const result = await compileSnapshot({ sourceDir: source, outFile: join(dir, "bytes.db"), compiledAt: new Date("2026-03-01T12:00:00Z") });
  expect(result.ok ? [] : result.problems).toEqual([
    "funds.jsonl:1: (root): the file starts with a byte order mark (BOM, bytes EF BB BF): save it as UTF-8 without a BOM",
    'funds.jsonl:2: (root): invalid UTF-8 at byte 35 of the line (byte 144 of the file): 0xE9 ("é" in Latin-1); save the file as UTF-8',
    "funds.jsonl:4: (root): the line starts with a byte order mark (BOM, U+FEFF): remove it",
  ]);
});
