// Whether the prebuilt bundle in dist/ may be run: every file it was built from still has the size
// and mtime recorded in dist/build-info.json (scripts/build.mjs). Used by bin/cei.js, and by the
// compile benchmark so that it measures the compiler operators run.
import { readFileSync, statSync } from "node:fs";

/** Why dist/ under `repo` (a directory URL) cannot be used, or undefined when it is current. */
export function distStaleReason(repo) {
  if (process.env.CEI_ENTRY === "tsx") return "CEI_ENTRY=tsx";
  let info;
  try {
    info = JSON.parse(readFileSync(new URL("dist/build-info.json", repo), "utf8"));
  } catch {
    return "no dist/build-info.json";
  }
  for (const { path, size, mtimeMs } of info.inputs) {
    const stat = statSync(new URL(path, repo), { throwIfNoEntry: false });
    if (stat === undefined || stat.size !== size || stat.mtimeMs !== mtimeMs) return `${path} changed since the build`;
  }
  return undefined;
}
