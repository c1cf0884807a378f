// Where a source file is not UTF-8: the first ill-formed byte sequence of each line, by line
// number (counted as read-lines.ts counts them) and byte offset. A byte-by-byte scan of the whole
// file, run only once the decoder has found that the file holds one.
import { closeSync, openSync, readSync } from "node:fs";

export interface InvalidUtf8 {
  /** 0-based offsets of the ill-formed sequence's first byte, in its line and in the file. */
  lineOffset: number;
  fileOffset: number;
  byte: number;
}

/** The bytes a lead byte may be followed by first (RFC 3629's table), and how many follow it. */
function leadOf(byte: number): { follow: number; low: number; high: number } | undefined {
  if (byte >= 0xc2 && byte <= 0xdf) return { follow: 1, low: 0x80, high: 0xbf };
  if (byte === 0xe0) return { follow: 2, low: 0xa0, high: 0xbf };
  if (byte === 0xed) return { follow: 2, low: 0x80, high: 0x9f };
  if (byte >= 0xe1 && byte <= 0xef) return { follow: 2, low: 0x80, high: 0xbf };
  if (byte === 0xf0) return { follow: 3, low: 0x90, high: 0xbf };
  if (byte === 0xf4) return { follow: 3, low: 0x80, high: 0x8f };
  if (byte >= 0xf1 && byte <= 0xf3) return { follow: 3, low: 0x80, high: 0xbf };
  return undefined;
}

/**
 * The first ill-formed sequence of each line that holds one, by 1-based line number. `source` is
 * a path, or a descriptor (read from its start, left open).
 */
export function invalidUtf8Lines(source: string | number, chunkBytes = 1 << 20): Map<number, InvalidUtf8> {
  const found = new Map<number, InvalidUtf8>();
  const buffer = Buffer.allocUnsafe(chunkBytes);
  const fd = typeof source === "number" ? source : openSync(source, "r");
  let line = 1;
  let lineStart = 0;
  let offset = 0;
  let afterCr = false;
  /** The pending multibyte sequence: where it started, how many bytes it still needs, the range of the next. */
  let sequenceStart = -1;
  let sequenceByte = 0;
  let needed = 0;
  let low = 0x80;
  let high = 0xbf;
  const report = (at: number, byte: number) => {
    if (!found.has(line)) found.set(line, { lineOffset: at - lineStart, fileOffset: at, byte });
    needed = 0;
  };
  try {
    for (let read = readSync(fd, buffer, 0, chunkBytes, 0); read > 0; read = readSync(fd, buffer, 0, chunkBytes, offset)) {
      for (let i = 0; i < read; i++, offset++) {
        const byte = buffer[i]!;
        if (afterCr) {
          afterCr = false;
          if (byte === 0x0a) {
            lineStart = offset + 1;
            continue;
          }
        }
        if (needed > 0) {
          if (byte >= low && byte <= high) {
            needed--;
            low = 0x80;
            high = 0xbf;
            continue;
          }
          report(sequenceStart, sequenceByte); // cut short: the lead byte is reported; this byte starts afresh
        }
        if (byte === 0x0a || byte === 0x0d) {
          line++;
          lineStart = offset + 1;
          afterCr = byte === 0x0d;
        } else if (byte >= 0x80) {
          const lead = leadOf(byte);
          if (lead === undefined) {
            report(offset, byte);
          } else {
            sequenceStart = offset;
            sequenceByte = byte;
            ({ low, high } = lead);
            needed = lead.follow;
          }
        }
      }
    }
    if (needed > 0) report(sequenceStart, sequenceByte);
  } finally {
    if (typeof source !== "number") closeSync(fd);
  }
  return found;
}
