// Serving a snapshot (decision 23): owns the pointer to the snapshot that answers new requests.
// A new file (a rename over the path, a rewrite in place, or SIGHUP) is copied privately (decision
// 36: no other process can change the bytes served), opened, checked and prepared beside the
// current one, then swapped in at once; each request leases the snapshot it started with,
// and a replaced snapshot is closed when its last lease ends. A bad file is refused and logged.
import { statSync, watch, type FSWatcher } from "node:fs";
import { basename, dirname } from "node:path";
import type Database from "better-sqlite3";
import { handleSearchKey } from "../snapshot/x-ids.ts";
import type { OperationDeps } from "./operations/operation.ts";
import { isOffered, type OperationId } from "./policy.ts";
import { routes } from "./routes.ts";
import { checkSnapshotIntegrity, openSnapshot, readServingManifest } from "../snapshot/open.ts";
import { copySnapshot, fileIdentity } from "./snapshot-copy.ts";
import { serveRoute, type ServedRoute } from "./_pipeline.ts";
import { watchFreshness } from "./stale-warnings.ts";
import type { ServingEvent, SwapOutcome } from "./observation-types.ts";

/** One opened, checked snapshot with every operation's statements prepared on it. */
export interface LoadedSnapshot {
  readonly file: string;
  readonly db: Database.Database;
  readonly contentHash: string;
  /** The manifest's precomputed snapshots: name → as_of. */
  readonly snapshots: Readonly<Record<string, string | null>>;
  /** The manifest's `curated`: how many source records carry each family and each kind of data. */
  readonly curated: Readonly<Record<string, number>>;
  /** The operations the snapshot offers, prepared; one it does not offer (decision 28) has none, so it answers as an unknown route. */
  readonly routes: Readonly<Partial<Record<OperationId, ServedRoute>>>;
}

export interface ServingOptions {
  /** ms since the epoch; the operations' clock. Defaults to Date.now. */
  now?: () => number;
  /** One line per swap, refusal and stale warning, and the same as fields; defaults to stderr. */
  log?: (line: string, event: ServingEvent) => void;
  /** Quiet time after the last change to the file before it is loaded (a compile renames once). */
  debounceMs?: number;
  /**
   * The compiler's X secret; the handle-search key is derived from it (decision 24: the snapshot
   * holds no key). Without it, search finds no X account by handle.
   */
  xSecret?: string;
  /**
   * Serve the first snapshot as soon as it is opened and prepared, and check its integrity beside
   * serving: the check reads every page (about 0.7 s at 1M records), which would otherwise delay
   * start-up by as much. Called with the problems found (none: intact). Snapshots swapped in later
   * are always checked before they serve.
   */
  checkFirstBeside?: (problems: string[]) => void;
}

interface Slot {
  snapshot: LoadedSnapshot;
  leases: number;
  retired: boolean;
  identity: string;
  stopWarnings: () => void;
}

export class Serving {
  readonly file: string;
  readonly #now: () => number;
  readonly #log: (line: string, event: ServingEvent) => void;
  readonly #debounceMs: number;
  readonly #xHandleSearchKey: string | undefined;
  #current: Slot | undefined;
  /** Every snapshot still open: the current one, and replaced ones with requests in flight. */
  readonly #slots = new Map<LoadedSnapshot, Slot>();
  #swapping: Promise<SwapOutcome> | undefined;
  #again = false;
  #watcher: FSWatcher | undefined;
  #debounce: NodeJS.Timeout | undefined;

  private constructor(file: string, options: ServingOptions) {
    this.file = file;
    this.#now = options.now ?? Date.now;
    this.#log = options.log ?? ((line) => process.stderr.write(line + "\n"));
    this.#debounceMs = options.debounceMs ?? 250;
    this.#xHandleSearchKey = options.xSecret === undefined ? undefined : handleSearchKey(options.xSecret);
  }

  /** Opens, checks and prepares `file`; rejects with the reason when it cannot be served. */
  static async open(file: string, options: ServingOptions = {}): Promise<Serving> {
    const serving = new Serving(file, options);
    const { snapshot, identity } = await serving.#load(options.checkFirstBeside);
    serving.#current = serving.#slot(snapshot, identity);
    return serving;
  }

  /** True while a snapshot is loaded (until close). */
  get ready(): boolean {
    return this.#current !== undefined;
  }

  /** The content hash of the snapshot being served (for log lines). */
  get contentHash(): string | undefined {
    return this.#current?.snapshot.contentHash;
  }

  /** The snapshot a new request is answered from; hand it back with release() when answered. */
  acquire(): LoadedSnapshot {
    const slot = this.#current;
    if (slot === undefined) throw new Error("no snapshot is being served");
    slot.leases++;
    return slot.snapshot;
  }

  release(snapshot: LoadedSnapshot): void {
    const slot = this.#slots.get(snapshot);
    if (slot === undefined) return;
    slot.leases--;
    this.#closeIfDone(slot);
  }

  /** The file at the path, loaded and swapped in if it is a good snapshot; calls are serialised. */
  swap(): Promise<SwapOutcome> {
    if (this.#swapping !== undefined) {
      this.#again = true;
      return this.#swapping;
    }
    const run = async (): Promise<SwapOutcome> => {
      let outcome: SwapOutcome;
      do {
        this.#again = false;
        outcome = await this.#swapOnce();
      } while (this.#again);
      this.#swapping = undefined;
      return outcome;
    };
    this.#swapping = run();
    return this.#swapping;
  }

  /** Swaps whenever the file is replaced or rewritten: watches its folder, since a rename replaces the inode. */
  watch(): void {
    if (this.#watcher !== undefined) return;
    const name = basename(this.file);
    this.#watcher = watch(dirname(this.file), { persistent: false }, (_event, changed) => {
      if (changed !== null && changed !== name) return;
      clearTimeout(this.#debounce);
      this.#debounce = setTimeout(() => void this.swap(), this.#debounceMs);
    });
  }

  /** Stops watching; the current snapshot closes once its in-flight requests are answered. */
  close(): void {
    this.#watcher?.close();
    this.#watcher = undefined;
    clearTimeout(this.#debounce);
    const slot = this.#current;
    this.#current = undefined;
    if (slot !== undefined) this.#retire(slot);
  }

  #slot(snapshot: LoadedSnapshot, identity: string): Slot {
    const slot: Slot = {
      snapshot, leases: 0, retired: false, identity,
      stopWarnings: watchFreshness(snapshot, this.#now, this.#log),
    };
    this.#slots.set(snapshot, slot);
    return slot;
  }

  #retire(slot: Slot): void {
    slot.retired = true;
    slot.stopWarnings();
    this.#closeIfDone(slot);
  }

  #closeIfDone(slot: Slot): void {
    if (!slot.retired || slot.leases > 0) return;
    this.#slots.delete(slot.snapshot);
    slot.snapshot.db.close();
  }

  async #swapOnce(): Promise<SwapOutcome> {
    const current = this.#current;
    if (current === undefined) return "refused";
    let identity: string;
    try {
      identity = _identity(this.file);
    } catch (error) {
      this.#refused(_reason(error), current.snapshot.contentHash);
      return "refused";
    }
    if (identity === current.identity) return "unchanged";
    const started = performance.now();
    let next: LoadedSnapshot;
    try {
      ({ snapshot: next, identity } = await this.#load());
    } catch (error) {
      this.#refused(_reason(error), current.snapshot.contentHash);
      return "refused";
    }
    if (this.#current !== current) {
      // Closed while the new file was being checked.
      next.db.close();
      return "refused";
    }
    this.#current = this.#slot(next, identity);
    this.#retire(current);
    const checkMs = Math.round(performance.now() - started);
    this.#log(
      `cei serve: now serving snapshot ${next.contentHash} from ${this.file} (was ${current.snapshot.contentHash}; checked in ${checkMs} ms)`,
      { event: "snapshot_swapped", snapshot: next.contentHash, previous: current.snapshot.contentHash, file: this.file, check_ms: checkMs },
    );
    return "swapped";
  }

  #refused(reason: string, served: string): void {
    this.#log(`cei serve: refused ${this.file}: ${reason}; still serving snapshot ${served}`, { event: "snapshot_refused", snapshot: served, file: this.file, reason });
  }

  /**
   * Copies the file privately, opens the copy (format), reads its manifest, checks its integrity
   * off the event loop, prepares every operation. The copy's path is removed once checked; the
   * open connection keeps its inode until the snapshot is closed.
   */
  async #load(checkBeside?: (problems: string[]) => void): Promise<{ snapshot: LoadedSnapshot; identity: string }> {
    const copy = await copySnapshot(this.file);
    let db: Database.Database | undefined;
    let checking = false;
    try {
      db = openSnapshot(copy.file, this.file);
      const { contentHash, snapshots, curated } = readServingManifest(this.file, db);
      if (checkBeside === undefined) {
        const integrity = await checkSnapshotIntegrity(copy.file);
        if (integrity.problems.length > 0) throw new Error(`it is damaged (${integrity.problems.slice(0, 3).join("; ")})`);
      } else {
        checking = true;
        void checkSnapshotIntegrity(copy.file).then(
          (integrity) => checkBeside(integrity.problems),
          (error: unknown) => checkBeside([error instanceof Error ? error.message : String(error)]),
        ).finally(() => void copy.discard());
      }
      const deps: OperationDeps = { snapshot: db, now: this.#now };
      if (this.#xHandleSearchKey !== undefined) deps.xHandleSearchKey = this.#xHandleSearchKey;
      const prepared: Partial<Record<OperationId, ServedRoute>> = {};
      for (const route of routes) {
        if (isOffered(route.operation, curated)) prepared[route.operation] = serveRoute(route, route.handler.create(deps));
      }
      return { snapshot: { file: this.file, db, contentHash, snapshots, curated, routes: prepared }, identity: copy.identity };
    } catch (error) {
      db?.close();
      throw error;
    } finally {
      if (!checking) await copy.discard();
    }
  }
}

/** What is at the path now (stat does not open it, so a FIFO there cannot block). */
function _identity(file: string): string {
  return fileIdentity(statSync(file, { bigint: true }));
}

function _reason(error: unknown): string {
  const message = error instanceof Error ? error.message : String(error);
  if (/file is not a database|file is encrypted/i.test(message)) return "it is not a SQLite database";
  if (/ENOENT|no such file|does not exist|unable to open/i.test(message)) return "there is no file at that path";
  return message;
}
