// The family table: which file holds which family, and its source schema.
import type { z } from "zod";
import { eventSource } from "./events/source.ts";
import { fundSource } from "./funds/source.ts";
import { newsSource } from "./news/source.ts";
import { personSource } from "./people/source.ts";
import { projectSource } from "./projects/source.ts";
import { stockSource } from "./stocks/source.ts";
import { tokenSource } from "./tokens/source.ts";
import { trendingSignalSource } from "./trending/source.ts";
import { xAccountSource } from "./x-accounts/source.ts";

export interface FamilyFile {
  family: string;
  file: string;
  schema: z.ZodType;
}

/** Order matters: a family may only reference families listed before it, except where the compiler checks references after loading all files. */
export const familyFiles: readonly FamilyFile[] = [
  { family: "projects", file: "projects.jsonl", schema: projectSource },
  { family: "tokens", file: "tokens.jsonl", schema: tokenSource },
  { family: "people", file: "people.jsonl", schema: personSource },
  { family: "funds", file: "funds.jsonl", schema: fundSource },
  { family: "stocks", file: "stocks.jsonl", schema: stockSource },
  { family: "news", file: "news.jsonl", schema: newsSource },
  { family: "events", file: "events.jsonl", schema: eventSource },
  { family: "x_accounts", file: "x_accounts.jsonl", schema: xAccountSource },
  { family: "trending", file: "trending.jsonl", schema: trendingSignalSource },
];
