// Opening a family file (docs/source-format.md, "Files"): only a regular file inside the source
// folder is read. A symbolic link may point to a file that is itself inside the folder (a curator
// may keep dated copies beside each other as dotfiles and point the family file at one); a link
// leading out of the folder, a directory, a FIFO, a socket or a device is a problem that quotes
// nothing of what it points to. The type is checked before the open (opening a FIFO for reading
// waits for a writer; opening a device may have effects) and again on the opened descriptor, so
// that an entry swapped in between is never read either.
import { closeSync, constants, fstatSync, lstatSync, openSync, realpathSync, statSync, type Stats } from "node:fs";
import { join, sep } from "node:path";

/** The opened family file, a problem with it (printed as `file: (root): problem`), or undefined when there is none. */
export type FamilyFileOpen = { fd: number } | { problem: string } | undefined;

const errorCode = (error: unknown): string => (error as NodeJS.ErrnoException).code ?? (error as Error).message;

function typeName(stats: Stats): string {
  if (stats.isDirectory()) return "a directory";
  if (stats.isFIFO()) return "a FIFO (named pipe)";
  if (stats.isSocket()) return "a socket";
  if (stats.isCharacterDevice()) return "a character device";
  if (stats.isBlockDevice()) return "a block device";
  return "an entry of another type";
}

export function openFamilyFile(sourceDir: string, file: string): FamilyFileOpen {
  const path = join(sourceDir, file);
  let target: Stats;
  try {
    target = lstatSync(path);
    if (target.isSymbolicLink()) {
      let real: string;
      try {
        real = realpathSync(path);
      } catch {
        return { problem: "a symbolic link to nothing (its target does not exist): not read" };
      }
      if (!real.startsWith(realpathSync(sourceDir) + sep)) {
        return { problem: "a symbolic link leading out of the source folder: not read; copy the file into the folder" };
      }
      target = statSync(real);
    }
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ENOENT") return undefined;
    return { problem: `cannot be read (${errorCode(error)})` };
  }
  if (!target.isFile()) return { problem: `${typeName(target)}, not a regular file: not read; a family's records must be in a regular file` };
  let fd: number;
  try {
    // O_NONBLOCK: should a FIFO have replaced the file since the check, the open still returns.
    fd = openSync(path, constants.O_RDONLY | constants.O_NONBLOCK);
  } catch (error) {
    return { problem: `cannot be read (${errorCode(error)})` };
  }
  const opened = fstatSync(fd);
  if (!opened.isFile() || opened.ino !== target.ino || opened.dev !== target.dev) {
    closeSync(fd);
    return { problem: "replaced while it was being opened: not read; compile again" };
  }
  return { fd };
}
