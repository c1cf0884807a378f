// Vitest global setup: every test file, and every process a test starts, gets one private temp
// folder for this run as its os.tmpdir() (TMPDIR), removed when the run ends, so that a test that
// fails before its own clean-up, or a killed child process, leaves nothing in the system's
// temp folder. Tests still remove what they make; this is the net under them, and it names what
// it had to catch, so that a test that leaks is noticed.
import { mkdtempSync, readdirSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

export function setup(): () => void {
  const root = mkdtempSync(join(tmpdir(), "cei-test-run-"));
  const previous = process.env.TMPDIR;
  process.env.TMPDIR = root;
  return () => {
    if (previous === undefined) delete process.env.TMPDIR;
    else process.env.TMPDIR = previous;
    const left = readdirSync(root);
    if (left.length > 0) process.stderr.write(`test temp folder: ${left.length} entries left behind by tests, removed: ${left.join(", ")}\n`);
    rmSync(root, { recursive: true, force: true });
  };
}
