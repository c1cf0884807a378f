// One compile (or the floor) in a process of its own, so that its peak RSS is its own:
//   node --import tsx bench/_compile-child.ts <compile|floor> <sourceDir> <outFile> <compiledAt ISO> <xSecret>
// prints one JSON line: { ok, wallMs, maxRssBytes, outBytes, problems? }.
import { statSync } from "node:fs";
import { distStaleReason } from "../scripts/dist-status.mjs";
import { compileFloor } from "./_compile-floor.ts";

// The compiler as `cei compile` runs it: the prebuilt bundle when it is current (its worker
// threads then start in tens of milliseconds, not the ~0.5 s of loading TypeScript through tsx).
const stale = distStaleReason(new URL("../", import.meta.url));
const { compileSnapshot } = (stale === undefined
  ? await import(new URL("../dist/compile.mjs", import.meta.url).href)
  : await import("../compiler/compile.ts")) as typeof import("../compiler/compile.ts");

export interface CompileChildReport {
  ok: boolean;
  /** Wall time of the compile call itself (module loading excluded). */
  wallMs: number;
  /** process.resourceUsage().maxRSS at the end, in bytes. */
  maxRssBytes: number;
  outBytes: number;
  problems?: string[];
  /** What ran: "dist" (the prebuilt bundle) or why the TypeScript sources ran instead. */
  entry: string;
}

const [mode, sourceDir, outFile, compiledAt, xSecret] = process.argv.slice(2);
if (sourceDir === undefined || outFile === undefined || compiledAt === undefined || (mode !== "compile" && mode !== "floor")) {
  throw new Error("usage: _compile-child.ts <compile|floor> <sourceDir> <outFile> <compiledAt> <xSecret>");
}

const started = performance.now();
let problems: string[] | undefined;
if (mode === "compile") {
  const result = await compileSnapshot({ sourceDir, outFile, compiledAt: new Date(compiledAt), xSecret });
  if (!result.ok) problems = result.problems.slice(0, 20);
} else {
  await compileFloor(sourceDir, outFile);
}
const wallMs = performance.now() - started;
const report: CompileChildReport = {
  ok: problems === undefined,
  wallMs,
  maxRssBytes: process.resourceUsage().maxRSS * 1024,
  outBytes: problems === undefined ? statSync(outFile).size : 0,
  entry: mode === "floor" ? "tsx" : stale === undefined ? "dist" : `tsx (${stale})`,
  ...(problems === undefined ? {} : { problems }),
};
process.stdout.write(JSON.stringify(report) + "\n");
