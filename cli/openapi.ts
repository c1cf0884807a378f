// `cei openapi`: the OpenAPI 3.1 document of the API, with real examples from the bundled sample
// (docs/api-examples.ts runs them on a fresh compile, as for docs/api.md).
import { createHash } from "node:crypto";
import { writeFileSync } from "node:fs";
import type { Command } from "commander";
import { collectExamples, type Example } from "../docs/api-examples.ts";
import { codeToStatus, errorCodes } from "../server/errors.ts";
import { buildOpenApi } from "../server/openapi/document.ts";
import { errorResponseName } from "../server/openapi/responses.ts";

/** docs/api-examples.ts names success examples by operation id and errors `error-<status>`. */
export function openApiExamples(examples: readonly Example[]): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const example of examples) {
    const status = /^error-(\d{3})$/.exec(example.name)?.[1];
    const code = status === undefined ? undefined : errorCodes.find((candidate) => codeToStatus[candidate] === Number(status));
    out[code === undefined ? example.name : errorResponseName(code)] = example.body;
  }
  return out;
}

/** The document as written to docs/openapi.json: two-space JSON and a final newline. */
export async function openApiText(options: { releaseTrendingProjects: boolean }): Promise<string> {
  const examples = openApiExamples(await collectExamples());
  return JSON.stringify(buildOpenApi({ releaseTrendingProjects: options.releaseTrendingProjects, examples }), null, 2) + "\n";
}

export const sha256 = (text: string) => createHash("sha256").update(text).digest("hex");

export function registerOpenapi(program: Command): void {
  program
    .command("openapi")
    .description("Write the OpenAPI 3.1 document (docs/openapi.json) derived from the routes, the policy table and the operations' schemas.")
    .option("--out <file>", "file to write (default: standard output)")
    .option("--release-trending-projects", "document the hidden trending-projects operation too", false)
    .action(async (flags: { out?: string; releaseTrendingProjects: boolean }) => {
      const text = await openApiText({ releaseTrendingProjects: flags.releaseTrendingProjects });
      if (flags.out === undefined) {
        process.stdout.write(text);
        return;
      }
      writeFileSync(flags.out, text);
      // CHANGELOG.md records this hash for every published document (see its first lines).
      process.stderr.write(`${flags.out}: sha256 ${sha256(text)}\n`);
    });
}
