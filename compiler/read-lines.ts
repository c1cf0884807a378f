// Step 1's line reader: the lines of a source file, decoded as UTF-8 (a line that is not is reported
// by where, never decoded with replacement characters) and numbered as node:readline numbers them,
// in bounded memory. A line longer than MAX_LINE_BYTES is not held: it is skipped
// up to its line break and reported in its place, so that one runaway line costs neither memory
// nor the numbers of the lines after it.
import { closeSync, openSync, readSync } from "node:fs";
import { invalidUtf8Lines, type InvalidUtf8 } from "./_utf8.ts";

/** The longest source line accepted, in UTF-8 bytes (docs/source-format.md). */
export const MAX_LINE_BYTES = 16 * 1024 * 1024;
const READ_CHUNK_BYTES = 1 << 20;
/** Line breaks as readline counts them: CRLF, LF, or a lone CR. */
const LINE_BREAK = /\r\n|\n|\r/;

/** Stands for a line longer than the maximum: its text was never kept. */
export class OverlongLine {
  readonly maxBytes: number;
  constructor(maxBytes: number) {
    this.maxBytes = maxBytes;
  }
}

/** Stands for a line that is not UTF-8: where its first ill-formed byte sequence is. */
export class InvalidUtf8Line {
  readonly at: InvalidUtf8;
  constructor(at: InvalidUtf8) {
    this.at = at;
  }
}

/** Whether `text` (a line, or the start of one) is longer than `maxBytes` in UTF-8; cheap for short texts. */
const longerThan = (text: string, maxBytes: number): boolean => text.length * 3 > maxBytes && Buffer.byteLength(text) > maxBytes;

/**
 * The lines of a file, read `chunkBytes` at a time; lines over `maxLineBytes` come as an
 * OverlongLine, lines that are not UTF-8 as an InvalidUtf8Line. Valid files are decoded once; a
 * file found not to be UTF-8 is scanned for where (_utf8.ts) and read again from its start.
 * `source` is a path, or a descriptor that stays open (read by position, from the start).
 */
export function* readLines(source: string | number, chunkBytes = READ_CHUNK_BYTES, maxLineBytes = MAX_LINE_BYTES): Generator<string | OverlongLine | InvalidUtf8Line> {
  let yielded = 0;
  try {
    for (const line of decodedLines(source, chunkBytes, maxLineBytes, true)) {
      yield line;
      yielded++;
    }
    return;
  } catch (error) {
    if (!(error instanceof TypeError) || (error as NodeJS.ErrnoException).code !== "ERR_ENCODING_INVALID_ENCODED_DATA") throw error;
  }
  const invalid = invalidUtf8Lines(source, chunkBytes);
  let number = 0;
  for (const line of decodedLines(source, chunkBytes, maxLineBytes, false)) {
    number++;
    if (number <= yielded) continue;
    const at = invalid.get(number);
    yield at === undefined || line instanceof OverlongLine ? line : new InvalidUtf8Line(at);
  }
}

/** The lines as decoded; with `fatal`, the decoder throws a TypeError at the first byte that is not UTF-8. */
function* decodedLines(source: string | number, chunkBytes: number, maxLineBytes: number, fatal: boolean): Generator<string | OverlongLine> {
  const fd = typeof source === "number" ? source : openSync(source, "r");
  let position = 0;
  try {
    const buffer = Buffer.allocUnsafe(chunkBytes);
    // ignoreBOM keeps a byte order mark in the text, so that it is reported as one (validate-lines.ts).
    const decoder = new TextDecoder("utf-8", { fatal, ignoreBOM: true });
    let carry = "";
    let skipping = false;
    for (;;) {
      const bytes = readSync(fd, buffer, 0, buffer.length, position);
      if (bytes === 0) break;
      position += bytes;
      let text = carry + decoder.decode(buffer.subarray(0, bytes), { stream: true });
      // A CR at the end of a chunk may be the first half of a CRLF: keep it for the next chunk.
      const tail = text.endsWith("\r") ? "\r" : "";
      if (tail !== "") text = text.slice(0, -1);
      if (skipping) {
        const end = LINE_BREAK.exec(text);
        if (end === null) {
          carry = tail;
          continue;
        }
        yield new OverlongLine(maxLineBytes);
        skipping = false;
        text = text.slice(end.index + end[0].length);
      }
      const parts = _split(text);
      carry = parts.pop()! + tail;
      for (const line of parts) yield longerThan(line, maxLineBytes) ? new OverlongLine(maxLineBytes) : line;
      if (longerThan(carry, maxLineBytes)) {
        carry = "";
        skipping = true;
      }
    }
    const last = carry + decoder.decode();
    if (skipping) {
      yield new OverlongLine(maxLineBytes);
      return;
    }
    const lines = _split(last);
    if (lines.at(-1) === "") lines.pop();
    for (const line of lines) yield longerThan(line, maxLineBytes) ? new OverlongLine(maxLineBytes) : line;
  } finally {
    if (typeof source !== "number") closeSync(fd);
  }
}

/** Split at line breaks: by the plain "\n" when there is no CR (~3× faster than the pattern). */
function _split(text: string): string[] {
  return text.includes("\r") ? text.split(LINE_BREAK) : text.split("\n");
}
