#!/usr/bin/env node
// The package's command. It runs the prebuilt bundle dist/main.mjs (scripts/build.mjs, run by
// `npm install`/`npm ci` through `prepare`, and by `npm run build`) when that is current: every
// file it was built from still has the size and mtime recorded in dist/build-info.json. Otherwise
// (no build, or any source edited since) it runs the TypeScript sources through tsx's loader, so
// that `npx cei` works with no build step and an edited source is never run stale.
// CEI_ENTRY=tsx forces the sources; CEI_DEBUG_ENTRY=1 prints the path taken to stderr.
import { distStaleReason } from "../scripts/dist-status.mjs";

// The SQLite driver's binary needs Node-API 10 (Node 22 and newer); on Node 20 it crashes the
// process with a segmentation fault, so say what to do instead.
const major = Number(process.versions.node.split(".")[0]);
if (major < 22) {
  process.stderr.write(`cei needs Node.js 22 or 24; this is ${process.version}. Run it under Node 24 with: scripts/node.sh 24 npx cei ...\n`);
  process.exit(1);
}

const reason = distStaleReason(new URL("../", import.meta.url));
if (process.env.CEI_DEBUG_ENTRY === "1") process.stderr.write(`cei entry: ${reason === undefined ? "dist" : `tsx (${reason})`}\n`);
if (reason === undefined) {
  await import("../dist/main.mjs");
} else {
  const { register } = await import("tsx/esm/api");
  register();
  await import("../cli/main.ts");
}
