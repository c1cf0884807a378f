// Step 1's line reader: the lines of a source file, decoded as UTF-8 and numbered as node:readline
// numbers them, in bounded memory. A line longer than MAX_LINE_BYTES is not held: it is skipped
// up to its line break and reported in its place, so that one runaway line costs neither memory
// nor the numbers of the lines after it.
import { closeSync, openSync, readSync } from "node:fs";
import { StringDecoder } from "node:string_decoder";

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

/** Whether `text` (a line, or the start of one) is longer than `maxBytes` in UTF-8; cheap for short texts. */
const longerThan = (text: string, maxBytes: number): boolean => text.length * 3 > maxBytes && Buffer.byteLength(text) > maxBytes;

/** The lines of a file, read `chunkBytes` at a time; lines over `maxLineBytes` come as an OverlongLine. */
export function* readLines(path: string, chunkBytes = READ_CHUNK_BYTES, maxLineBytes = MAX_LINE_BYTES): Generator<string | OverlongLine> {
  const fd = openSync(path, "r");
  try {
    const buffer = Buffer.allocUnsafe(chunkBytes);
    const decoder = new StringDecoder("utf8");
    let carry = "";
    let skipping = false;
    for (;;) {
      const bytes = readSync(fd, buffer, 0, buffer.length, null);
      if (bytes === 0) break;
      let text = carry + decoder.write(buffer.subarray(0, bytes));
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
      const parts = text.split(LINE_BREAK);
      carry = parts.pop()! + tail;
      for (const line of parts) yield longerThan(line, maxLineBytes) ? new OverlongLine(maxLineBytes) : line;
      if (longerThan(carry, maxLineBytes)) {
        carry = "";
        skipping = true;
      }
    }
    const last = carry + decoder.end();
    if (skipping) {
      yield new OverlongLine(maxLineBytes);
      return;
    }
    const lines = last.split(LINE_BREAK);
    if (lines.at(-1) === "") lines.pop();
    for (const line of lines) yield longerThan(line, maxLineBytes) ? new OverlongLine(maxLineBytes) : line;
  } finally {
    closeSync(fd);
  }
}
