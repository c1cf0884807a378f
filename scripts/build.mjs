// Prebuilt bundle of the `cei` command: cli/main.ts, the compiler's worker entry, and
// compiler/compile.ts on its own (dist/compile.mjs, for the compile benchmark), bundled by esbuild into dist/ as plain ESM (node_modules stay external imports, so zod, h3,
// commander and the native better-sqlite3 load as ordinary Node modules). bin/cei.js runs dist/
// instead of the TypeScript sources through tsx when dist/build-info.json says it is current.
// Then the reference page's assets: server/public/assets.ts, bundled as dist/docs-assets.mjs and
// run from there, writes them to dist/docs/ under content-hashed names with .br and .gz beside
// them (the server checks what it finds there against its own copy, so a stale one is not served).
// Run by `npm run build` and by npm's `prepare` (npm install, npm ci).
//
// Layout, relied on by the sources' `new URL(..., import.meta.url)`:
// - every output file sits directly in dist/, one folder below the repository as cli/ and
//   compiler/ are, so compiler/manifest.ts's `../package.json` finds the same file;
// - the worker entry is dist/_worker.mjs, so compiler/workers.ts's `./_worker.mjs` starts the
//   bundled worker (compiler/_worker.mjs, the tsx-registering shim, is only used on the tsx path).
import { rmSync, statSync, writeFileSync } from "node:fs";
import { join, relative, resolve } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import * as esbuild from "esbuild";

export const REPO_DIR = fileURLToPath(new URL("..", import.meta.url));
/** Files that change the output without being bundled inputs. */
const CONFIG_FILES = ["scripts/build.mjs", "scripts/dist-status.mjs", "tsconfig.json", "package.json"];
const ATTEMPTS = 3;

/**
 * Builds dist/ and writes dist/build-info.json last: `inputs` lists every bundled source file and
 * the config files with the size and mtimeMs they had when they were read. Any difference makes
 * bin/cei.js fall back to tsx. Returns the build info.
 */
export async function build({ repoDir = REPO_DIR, log = (line) => process.stderr.write(line + "\n") } = {}) {
  const outdir = join(repoDir, "dist");
  for (let attempt = 1; attempt <= ATTEMPTS; attempt++) {
    rmSync(outdir, { recursive: true, force: true });
    // Sources edited after this point may or may not be in the bundle: such a build is retried.
    const startedAtMs = Date.now() - 1;
    const result = await esbuild.build({
      absWorkingDir: repoDir,
      entryPoints: [
        { in: "cli/main.ts", out: "main" },
        { in: "compiler/_worker.ts", out: "_worker" },
        { in: "compiler/compile.ts", out: "compile" },
        { in: "server/public/assets.ts", out: "docs-assets" },
      ],
      outdir,
      outExtension: { ".js": ".mjs" },
      chunkNames: "[name]-[hash]",
      bundle: true,
      splitting: true,
      format: "esm",
      platform: "node",
      target: "node20",
      packages: "external",
      sourcemap: "linked",
      metafile: true,
      logLevel: "warning",
    });
    const files = [...Object.keys(result.metafile.inputs).map((p) => relative(repoDir, resolve(repoDir, p))), ...CONFIG_FILES].sort();
    const inputs = files.map((path) => {
      const stat = statSync(join(repoDir, path));
      return { path, size: stat.size, mtimeMs: stat.mtimeMs };
    });
    // Only an mtime inside the build's own window means "edited while being read"; a future mtime
    // (clock skew, a touch with a later date) is recorded as it is, and any later edit changes it.
    const finishedAtMs = Date.now() + 1;
    const changed = inputs.filter((input) => input.mtimeMs >= startedAtMs && input.mtimeMs <= finishedAtMs);
    if (changed.length > 0) {
      log(`cei build: ${changed.map((i) => i.path).join(", ")} changed during the build${attempt < ATTEMPTS ? "; building again" : ""}`);
      continue;
    }
    const { writeDocsAssets } = await import(pathToFileURL(join(outdir, "docs-assets.mjs")).href);
    const assets = await writeDocsAssets(join(outdir, "docs"));
    const info = { builtAt: new Date().toISOString(), esbuild: esbuild.version, inputs };
    writeFileSync(join(outdir, "build-info.json"), JSON.stringify(info, null, 1) + "\n");
    log(`cei build: dist/ from ${inputs.length} files; dist/docs/: ${assets.join(", ")}, each with .br and .gz`);
    return info;
  }
  // No build-info.json: bin/cei.js keeps using the sources through tsx.
  throw new Error(`cei build: sources kept changing during ${ATTEMPTS} builds; dist/ left without build-info.json`);
}

if (process.argv[1] !== undefined && import.meta.url === pathToFileURL(resolve(process.argv[1])).href) {
  try {
    await build();
  } catch (error) {
    process.stderr.write(`${error instanceof Error ? error.message : String(error)}\n`);
    process.exitCode = 1;
  }
}
