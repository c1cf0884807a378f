// Where the service's lines go: gathered into batches and handed to pino's destination
// (sonic-boom), which writes them on libuv's thread pool, with a bound on what waits for a reader
// that does not read. A log that nobody reads costs lines, never memory without end, and never
// keeps the process from exiting.
import { pino, type DestinationStream } from "pino";

/**
 * Lines are gathered up to LOG_BUFFER_BYTES and handed over at least every LOG_FLUSH_MS: one write
 * per line cost about 70-100 µs of CPU per request (docs/performance.md).
 */
const LOG_BUFFER_BYTES = 4096;
const LOG_FLUSH_MS = 1000;
/**
 * What may wait for the reader: about 16,000 request lines, seconds of a burst for a reader that
 * is slow for a moment. Beyond it whole batches are dropped and counted, never queued: a reader
 * that stalled (a hung log shipper) once grew the process by ~0.8 KB per request without end.
 */
export const LOG_BUFFER_LIMIT_BYTES = 4 * 1024 * 1024;
/** At exit, how long a reader that does not read is waited for. */
export const LOG_CLOSE_WAIT_MS = 1000;
/** sonic-boom retries a write that met EAGAIN every 100 ms; a write with no retry for longer is in the kernel. */
const STUCK_AFTER_MS = 300;

type SonicBoom = ReturnType<typeof pino.destination>;

/** Sinks not closed yet: written out (within LOG_CLOSE_WAIT_MS) when the process exits without close(). */
const openSinks = new Set<LineBatches>();
let exitHooked = false;

/**
 * The lines gathered here and handed to sonic-boom a batch at a time: sonic-boom measures the byte
 * length of all it holds on every write it is given, so buffering in it alone cost ~2.9 µs a line
 * at 4 KiB, more than pino's serialising. sonic-boom still does the writing (one write
 * in flight, partial writes continued, EAGAIN retried every 100 ms) and refuses a batch that would
 * take it over LOG_BUFFER_LIMIT_BYTES: those lines are counted, and the count goes into the first
 * line written after them (`dropped_log_lines`).
 */
export class LineBatches implements DestinationStream {
  readonly #destination: SonicBoom;
  readonly #interval: NodeJS.Timeout;
  #pending = "";
  #pendingLines = 0;
  #dropped = 0;
  #unreported = 0;
  /** Set by sonic-boom's 'drop', which it emits inside the write it refuses. */
  #refused = false;
  /** The reader is gone (EPIPE) or the descriptor failed: every line from now on is dropped. */
  #broken = false;
  #closed = false;
  /** Handed over and not yet written (no 'drain' since). */
  #busy = false;
  #waiters: Array<() => void> = [];
  /** While a synchronous write-out at exit runs: EAGAIN is retried until then, not for ever. */
  #syncUntil: number | undefined;
  #lastEagain = 0;
  readonly #keepNonBlocking: () => void;

  /**
   * `keepNonBlocking` is called before every write: the descriptor's O_NONBLOCK belongs to its
   * open file description, which other processes may share and clear (libuv clears it on the
   * stdio a child inherits): a write on a blocking descriptor to a reader that stopped reading
   * would hold one of libuv's threads for ever.
   */
  constructor(dest: number | string, options: { keepNonBlocking?: () => void } = {}) {
    this.#keepNonBlocking = options.keepNonBlocking ?? (() => undefined);
    // minLength 0: the batching is done here; sonic-boom writes whatever it is handed at once, and
    // its 'drain' then means "all written".
    const destination = pino.destination({
      dest, sync: false, minLength: 0, maxLength: LOG_BUFFER_LIMIT_BYTES,
      // Asynchronous writes retry for as long as the reader stalls (their buffer is bounded); a
      // synchronous write-out (exit) gives up at its deadline instead of sleeping for ever.
      retryEAGAIN: () => {
        this.#lastEagain = Date.now();
        this.#keepNonBlocking();
        return this.#syncUntil === undefined || Date.now() < this.#syncUntil;
      },
    });
    this.#destination = destination;
    destination.on("drop", () => (this.#refused = true));
    destination.on("drain", () => this.#settle());
    // EPIPE (pino then turns the destination's methods into no-ops) or any other failed write:
    // the lines are counted as dropped from then on rather than thrown at the caller.
    destination.on("error", () => {
      this.#broken = true;
      this.#settle();
    });
    this.#interval = setInterval(() => this.#handOver(), LOG_FLUSH_MS).unref();
    openSinks.add(this);
    if (!exitHooked) {
      exitHooked = true;
      // Before pino's own exit hook, whose flushSync would retry EAGAIN for ever on a stalled pipe.
      process.prependListener("exit", () => {
        for (const sink of openSinks) sink.closeSync();
      });
    }
  }

  write(line: string): void {
    this.#pending += line;
    this.#pendingLines++;
    // Characters, not bytes: a line is never fewer bytes than characters, and the bound is loose.
    if (this.#pending.length >= LOG_BUFFER_BYTES) this.#handOver();
  }

  /** Lines dropped since the sink was made: refused at the bound, or after the reader went away. */
  get droppedLines(): number {
    return this.#dropped;
  }

  /**
   * A write has been under way without completing or meeting EAGAIN: it is blocked in the kernel
   * (the descriptor was made blocking meanwhile), and holds one of libuv's threads until the
   * reader reads, which process.exit would wait for.
   */
  get writeStuck(): boolean {
    return this.#busy && !this.#broken && Date.now() - this.#lastEagain > STUCK_AFTER_MS;
  }

  /** Resolves once everything handed over is written, or after `waitMs` (a reader that does not read). */
  flush(waitMs = LOG_CLOSE_WAIT_MS): Promise<void> {
    this.#handOver();
    if (!this.#busy || this.#broken || this.#closed) return Promise.resolve();
    return new Promise((resolve) => {
      const timer = setTimeout(done, waitMs);
      this.#waiters.push(done);
      function done(): void {
        clearTimeout(timer);
        resolve();
      }
    });
  }

  /** flush(), then nothing more is written: what a stalled reader did not take is let go. */
  async close(waitMs = LOG_CLOSE_WAIT_MS): Promise<void> {
    await this.flush(waitMs);
    this.#end();
  }

  /** At exit without close(): what is gathered is written synchronously, for at most LOG_CLOSE_WAIT_MS. */
  closeSync(): void {
    if (this.#closed) return;
    this.#handOver();
    this.#syncUntil = Date.now() + LOG_CLOSE_WAIT_MS;
    try {
      if (!this.#broken) this.#destination.flushSync();
    } catch {
      // The reader did not take the last lines in time, or is gone: they are lost.
    }
    this.#end();
  }

  #end(): void {
    if (this.#closed) return;
    this.#closed = true;
    clearInterval(this.#interval);
    openSinks.delete(this);
    // Discards what a stalled reader did not take, so that nothing (pino's exit hook included)
    // waits for it; the descriptor itself (stderr) stays open.
    this.#destination.destroy();
  }

  #handOver(): void {
    if (this.#pending === "") return;
    let batch = this.#pending;
    const lines = this.#pendingLines;
    this.#pending = "";
    this.#pendingLines = 0;
    if (this.#broken || this.#closed) {
      this.#drop(lines);
      return;
    }
    // The count goes into the first line of the batch: still one JSON object per line.
    if (this.#unreported > 0) batch = `{"dropped_log_lines":${this.#unreported},${batch.slice(1)}`;
    this.#refused = false;
    this.#keepNonBlocking();
    this.#destination.write(batch);
    if (this.#refused) {
      this.#drop(lines);
    } else {
      this.#unreported = 0;
      this.#busy = true;
    }
  }

  #drop(lines: number): void {
    this.#dropped += lines;
    this.#unreported += lines;
  }

  #settle(): void {
    this.#busy = false;
    for (const waiter of this.#waiters.splice(0)) waiter();
  }
}
