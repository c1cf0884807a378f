// Shared by the sample's tests: write a sample to a temp folder and read it back, every line
// parsed with its family's source schema (so defaults are applied as the compiler sees them).
import { mkdtempSync, readFileSync, readdirSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll } from "vitest";
import type { z } from "zod";
import type { eventSource } from "../../compiler/families/events/source.ts";
import type { fundSource } from "../../compiler/families/funds/source.ts";
import { families } from "../../compiler/families/index.ts";
import type { narrativeSource } from "../../compiler/families/narratives/source.ts";
import type { newsSource } from "../../compiler/families/news/source.ts";
import type { personSource } from "../../compiler/families/people/source.ts";
import type { projectSource } from "../../compiler/families/projects/source.ts";
import type { stockSource } from "../../compiler/families/stocks/source.ts";
import type { tokenSource } from "../../compiler/families/tokens/source.ts";
import type { trendingSignalSource } from "../../compiler/families/trending/source.ts";
import type { xAccountSource } from "../../compiler/families/x-accounts/source.ts";
import { writeSample } from "../../data/sample.ts";

export const HOUR = 3_600_000;
export const DAY = 24 * HOUR;

/** Fixed as-of instants (the tests never read the clock): mid-year, a year's first minutes, a leap day's last. */
export const AS_OF = new Date("2026-06-15T12:34:56.789Z");
export const OTHER_AS_OFS = [new Date("2027-01-01T00:10:00.000Z"), new Date("2028-02-29T23:59:59.999Z")];

export interface Sample {
  dir: string;
  asOf: Date;
  files: Record<string, number>;
  projects: z.output<typeof projectSource>[];
  tokens: z.output<typeof tokenSource>[];
  people: z.output<typeof personSource>[];
  funds: z.output<typeof fundSource>[];
  stocks: z.output<typeof stockSource>[];
  narratives: z.output<typeof narrativeSource>[];
  news: z.output<typeof newsSource>[];
  events: z.output<typeof eventSource>[];
  x_accounts: z.output<typeof xAccountSource>[];
  trending: z.output<typeof trendingSignalSource>[];
}

const tempDirs: string[] = [];

/** A temp folder removed after the importing test file has run. */
export function tempDir(prefix: string): string {
  const dir = mkdtempSync(join(tmpdir(), prefix));
  tempDirs.push(dir);
  return dir;
}

afterAll(() => {
  for (const dir of tempDirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

export async function generateSample(asOf: Date, scale = 1): Promise<{ dir: string; files: Record<string, number> }> {
  const dir = tempDir("cei-sample-");
  const { files } = await writeSample({ outDir: dir, asOf, scale });
  return { dir, files };
}

export function readLines(dir: string, file: string): string[] {
  const text = readFileSync(join(dir, file), "utf8");
  return text.endsWith("\n") ? text.slice(0, -1).split("\n") : text.split("\n");
}

/** Writes and reads back a sample; throws on the first line that does not parse. */
export async function loadSample(asOf: Date, scale = 1): Promise<Sample> {
  const { dir, files } = await generateSample(asOf, scale);
  const records: Record<string, unknown[]> = {};
  for (const { family, file, schema } of families) {
    records[family] = readLines(dir, file).map((line, i) => {
      const parsed = schema.safeParse(JSON.parse(line));
      if (!parsed.success) throw new Error(`${file}:${i + 1}: ${parsed.error.message}`);
      return parsed.data;
    });
  }
  return { dir, asOf, files, ...records } as Sample;
}

export function fileNames(dir: string): string[] {
  return readdirSync(dir).sort();
}

export const visible = (record: { hidden: boolean; deleted: boolean }): boolean => !record.hidden && !record.deleted;
export const ageMs = (asOf: Date, at: string): number => asOf.getTime() - Date.parse(at);
export const ymd = (ms: number): string => new Date(ms).toISOString().slice(0, 10);
