// The families, each defined in its own folder (./define.ts): the one list every compile phase
// loops over.
import type { FamilyDefinition } from "./define.ts";
import { events } from "./events/index.ts";
import { funds } from "./funds/index.ts";
import { narratives } from "./narratives/index.ts";
import { news } from "./news/index.ts";
import { people } from "./people/index.ts";
import { projects } from "./projects/index.ts";
import { stocks } from "./stocks/index.ts";
import { tokens } from "./tokens/index.ts";
import { trending } from "./trending/index.ts";
import { xAccounts } from "./x-accounts/index.ts";

/**
 * Order matters: a family's eligibility may read the kept (k_*) tables of families listed before
 * it, and the snapshot's tables are written in this order (so the file's bytes depend on it).
 */
export const families: readonly FamilyDefinition[] = [
  projects, tokens, people, funds, stocks, narratives, news, events, xAccounts, trending,
];

/** The definition of the family named `family`. */
export function familyNamed(family: string): FamilyDefinition {
  const found = families.find((f) => f.family === family);
  if (found === undefined) throw new Error(`unknown family ${family}`);
  return found;
}
