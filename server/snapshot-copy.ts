// A private copy of a regular snapshot file for serving (no other process can change the bytes
// served); server/serving.ts opens the copy with snapshot/open.ts.
import { constants, promises as fsp, type BigIntStats } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";

/** A private copy of a snapshot file: the bytes served, which no other process rewrites. */
export interface SnapshotCopy {
  /** The copy, in a folder of mode 0700 of its own. */
  readonly file: string;
  /** The identity (fileIdentity) of the file copied, as it was before and after the copy. */
  readonly identity: string;
  /** Removes the copy's path; a connection already open on it keeps reading its inode. */
  discard(): Promise<void>;
}

/**
 * Copies the regular file at `file` into a private folder beside it (the same file system, so
 * the copy is a reflink where the file system has them), or in the system temp folder when that
 * folder is not writable. A memory-mapped file that another process truncates or rewrites
 * kills the process with SIGBUS or answers from a mix of two files; a private copy cannot be.
 * Never opens a FIFO, device, socket or folder (opening a FIFO for reading blocks until a writer
 * comes). Rejects when the file changed while being copied: the copy may mix two versions.
 */
export async function copySnapshot(file: string): Promise<SnapshotCopy> {
  _mustBeRegular(file, await fsp.stat(file, { bigint: true }).catch((error: unknown) => _missing(file, error)));
  // Non-blocking, in case a FIFO was renamed over the path since the stat; checked again on the descriptor.
  const source = await fsp.open(file, constants.O_RDONLY | constants.O_NONBLOCK).catch((error: unknown) => _missing(file, error));
  let folder: string | undefined;
  try {
    const before = await source.stat({ bigint: true });
    _mustBeRegular(file, before);
    folder = await fsp.mkdtemp(join(dirname(file), ".cei-serve-")).catch(() => fsp.mkdtemp(join(tmpdir(), "cei-serve-")));
    const copy = join(folder, "snapshot.db");
    // Linux names the open descriptor's inode: no path lookup between the check and the copy.
    const from = process.platform === "linux" ? `/proc/self/fd/${source.fd}` : file;
    await fsp.copyFile(from, copy, constants.COPYFILE_FICLONE);
    const after = await source.stat({ bigint: true });
    const copied = await fsp.stat(copy, { bigint: true });
    if (fileIdentity(after) !== fileIdentity(before) || copied.size !== before.size) throw new Error("it changed while being copied");
    const done = folder;
    folder = undefined;
    return { file: copy, identity: fileIdentity(before), discard: () => fsp.rm(done, { recursive: true, force: true }) };
  } finally {
    await source.close();
    if (folder !== undefined) await fsp.rm(folder, { recursive: true, force: true });
  }
}

/** Device, inode, size and modification and change times: a rename over the path, or a rewrite in place, changes it. */
export function fileIdentity(stat: BigIntStats): string {
  return `${stat.dev}:${stat.ino}:${stat.size}:${stat.mtimeNs}:${stat.ctimeNs}`;
}

function _mustBeRegular(file: string, stat: BigIntStats): void {
  if (stat.isFile()) return;
  const kind = stat.isDirectory() ? "a directory" : stat.isFIFO() ? "a FIFO" : stat.isSocket() ? "a socket"
    : stat.isCharacterDevice() || stat.isBlockDevice() ? "a device" : "not a regular file";
  throw new Error(`${file} is ${kind}, not a snapshot file`);
}

function _missing(file: string, error: unknown): never {
  if ((error as NodeJS.ErrnoException).code === "ENOENT") throw new Error(`${file}: no such file`);
  throw error;
}
