// The bundled sample: curated source files for every family, fresh relative to `asOf` and
// deterministic for a given `asOf` and `scale` (docs/sample.md). Each family is generated
// record by record and streamed to disk, so memory does not grow with scale.
import { mkdir } from "node:fs/promises";
import { join } from "node:path";
import { families } from "../compiler/families/index.ts";
import { eventRecords } from "./events.ts";
import { fundRecords } from "./funds.ts";
import { newsRecords } from "./news.ts";
import { personRecords } from "./people.ts";
import { narrativeRecords } from "./narratives.ts";
import { makePlan, type Plan } from "./plan.ts";
import { projectRecords } from "./projects.ts";
import { stockRecords } from "./stocks.ts";
import { tokenRecords } from "./tokens.ts";
import { trendingRecords } from "./trending.ts";
import { JsonlWriter } from "./_writer.ts";
import { xAccountRecords } from "./x-accounts.ts";

export interface SampleOptions {
  outDir: string;
  asOf: Date;
  /** Positive; about 1,100 lines per unit (values below 1 give the scale-1 sample). */
  scale: number;
}

export interface SampleResult {
  /** Lines written per file name (e.g. `projects.jsonl`). */
  files: Record<string, number>;
}

const generators: Record<string, (plan: Plan) => Iterable<unknown>> = {
  projects: projectRecords,
  tokens: tokenRecords,
  people: personRecords,
  funds: fundRecords,
  stocks: stockRecords,
  narratives: narrativeRecords,
  news: newsRecords,
  events: eventRecords,
  x_accounts: xAccountRecords,
  trending: trendingRecords,
};

export async function writeSample(options: SampleOptions): Promise<SampleResult> {
  if (!(options.scale > 0) || !Number.isFinite(options.scale)) throw new RangeError(`scale must be a positive number, got ${options.scale}`);
  if (Number.isNaN(options.asOf.getTime())) throw new RangeError("asOf must be a valid date");
  const plan = makePlan(options.asOf, options.scale);
  await mkdir(options.outDir, { recursive: true });
  const files: Record<string, number> = {};
  for (const { family, file } of families) {
    const generate = generators[family];
    if (!generate) throw new Error(`the sample has no generator for family ${family}`);
    const writer = new JsonlWriter(join(options.outDir, file));
    try {
      for (const record of generate(plan)) await writer.write(record);
    } finally {
      await writer.close();
    }
    files[file] = writer.lines;
  }
  return { files };
}
