// A JSONL file written line by line: lines are gathered into chunks of about 64 KiB and
// written through a buffered stream that is allowed to drain, so memory stays flat at any scale.
import { createWriteStream, type WriteStream } from "node:fs";
import { once } from "node:events";

const CHUNK_CHARS = 64 * 1024;

export class JsonlWriter {
  readonly #stream: WriteStream;
  #chunk = "";
  #failure: Error | null = null;
  lines = 0;

  constructor(path: string) {
    this.#stream = createWriteStream(path, { encoding: "utf8", highWaterMark: 1024 * 1024 });
    this.#stream.on("error", (error) => {
      this.#failure = error;
    });
  }

  async write(record: unknown): Promise<void> {
    this.#chunk += `${JSON.stringify(record)}\n`;
    this.lines += 1;
    if (this.#chunk.length >= CHUNK_CHARS) await this.#flush();
  }

  async close(): Promise<void> {
    await this.#flush();
    await new Promise<void>((resolve, reject) => {
      this.#stream.end((error?: Error | null) => (error ? reject(error) : resolve()));
    });
    if (this.#failure) throw this.#failure;
  }

  async #flush(): Promise<void> {
    if (this.#failure) throw this.#failure;
    if (this.#chunk.length === 0) return;
    const drained = this.#stream.write(this.#chunk);
    this.#chunk = "";
    if (!drained) await once(this.#stream, "drain");
  }
}
