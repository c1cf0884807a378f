// The `cei` command: one subcommand module per concern, each registering itself.
import { Command } from "commander";
import { registerCompile } from "./compile.ts";
import { registerInspect } from "./inspect.ts";
import { registerKeys } from "./keys.ts";
import { registerSample } from "./sample.ts";
import { registerSchema } from "./schema.ts";
import { registerServe } from "./serve.ts";

const program = new Command("cei")
  .description("Curated entity intelligence: compile curated sources, serve the snapshot, manage keys.")
  .showHelpAfterError();

registerCompile(program);
registerSample(program);
registerSchema(program);
registerInspect(program);
registerServe(program);
registerKeys(program);

await program.parseAsync(process.argv);
