#!/usr/bin/env node
// The package's command. It runs the prebuilt bundle dist/main.mjs (scripts/build.mjs, run by
// `npm install`/`npm ci` through `prepare`, and by `npm run build`) when that is current: every
// file it was built from still has the size and mtime recorded in dist/build-info.json. Otherwise
// (no build, or any source edited since) it runs the TypeScript sources through tsx's loader, so
// that `npx cei` works with no build step and an edited source is never run stale.
// CEI_ENTRY=tsx forces the sources; CEI_DEBUG_ENTRY=1 prints the path taken to stderr.
import { readFileSync, statSync } from "node:fs";

const repo = new URL("../", import.meta.url);

/** Why dist/ cannot be used, or undefined when it is current. */
function staleReason() {
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

const reason = staleReason();
if (process.env.CEI_DEBUG_ENTRY === "1") process.stderr.write(`cei entry: ${reason === undefined ? "dist" : `tsx (${reason})`}\n`);
if (reason === undefined) {
  await import("../dist/main.mjs");
} else {
  const { register } = await import("tsx/esm/api");
  register();
  await import("../cli/main.ts");
}
