// Source folders written by a test: the files it gives, and every other family file empty (a
// missing family file is a problem; an empty one is a family that is intentionally empty).
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { families } from "../../compiler/families/index.ts";

/** Writes `files` (name → content) into `dir`, and an empty file for each family not among them. */
export function writeSources(dir: string, files: Record<string, string | Uint8Array>): void {
  for (const [name, content] of Object.entries(files)) writeFileSync(join(dir, name), content);
  for (const { file } of families) if (!(file in files)) writeFileSync(join(dir, file), "");
}
