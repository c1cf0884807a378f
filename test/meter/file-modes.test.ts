import { chmodSync, existsSync, statSync, writeFileSync } from "node:fs";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { openMeterDatabase } from "../../server/meter/sqlite/database.ts";
import { SqliteMeter } from "../../server/meter/sqlite/meter.ts";
import { issueKey, tempDir, type TempDir } from "./_helpers.ts";

let dir: TempDir;
let file: string;
beforeEach(() => {
  dir = tempDir();
  file = dir.file("meter.db");
});
afterEach(() => dir.remove());

const modeOf = (path: string): number => statSync(path).mode & 0o777;

describe("meter file permissions", () => {
  it("creates the meter file, its -wal and -shm 0600 even under a permissive umask", () => {
    const previous = process.umask(0o000);
    let meter: SqliteMeter | undefined;
    try {
      meter = SqliteMeter.open(file);
      issueKey(file, { credits: 1 });
      for (const path of [file, `${file}-wal`, `${file}-shm`]) {
        expect(existsSync(path)).toBe(true);
        expect(modeOf(path).toString(8)).toBe("600");
      }
    } finally {
      meter?.close();
      process.umask(previous);
    }
  });

  it("warns when an existing meter file can be read by group or others, and not when it is private", () => {
    writeFileSync(file, "");
    chmodSync(file, 0o644);
    const warnings: string[] = [];
    openMeterDatabase(file, { warn: (m) => warnings.push(m) }).close();
    expect(warnings).toHaveLength(1);
    expect(warnings[0]).toContain(`meter file ${file} has mode 0644`);
    expect(warnings[0]).toContain(`chmod 600 ${file}`);

    chmodSync(file, 0o600);
    warnings.length = 0;
    openMeterDatabase(file, { warn: (m) => warnings.push(m) }).close();
    expect(warnings).toEqual([]);
  });
});
