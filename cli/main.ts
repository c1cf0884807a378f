// The `cei` command: one subcommand module per concern, each registering itself.
// Only the invoked subcommand's module is loaded (all of them for help), so that `cei serve`
// does not pay for loading the compiler and the sample generator at start-up.
import { Command } from "commander";

type Register = (program: Command) => void;

// A reader that stops reading (`cei diff a b | head -1`) is no failure of the command: on EPIPE
// it exits at once, quietly, with the status it has so far (commands set theirs before printing).
for (const stream of [process.stdout, process.stderr]) {
  stream.on("error", (error: NodeJS.ErrnoException) => {
    if (error.code === "EPIPE") process.exit(process.exitCode ?? 0);
    throw error;
  });
}

const subcommands: Record<string, () => Promise<Register>> = {
  compile: async () => (await import("./compile.ts")).registerCompile,
  sample: async () => (await import("./sample.ts")).registerSample,
  schema: async () => (await import("./schema.ts")).registerSchema,
  inspect: async () => (await import("./inspect.ts")).registerInspect,
  diff: async () => (await import("./diff.ts")).registerDiff,
  serve: async () => (await import("./serve.ts")).registerServe,
  keys: async () => (await import("./keys.ts")).registerKeys,
  openapi: async () => (await import("./openapi.ts")).registerOpenapi,
  mcp: async () => (await import("./mcp.ts")).registerMcp,
};

const program = new Command("cei")
  .description("Curated entity intelligence: compile curated sources, serve the snapshot, manage keys.")
  .showHelpAfterError();

const invoked = process.argv[2];
const needed = invoked !== undefined && Object.hasOwn(subcommands, invoked) ? [invoked] : Object.keys(subcommands);
for (const name of needed) (await subcommands[name]!())(program);

await program.parseAsync(process.argv);
