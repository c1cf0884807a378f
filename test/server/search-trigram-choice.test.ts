// Which trigrams a search pass ANDs: each word's rarest first, and a doclist read only when it
// pays for itself (server/operations/_search-trigrams.ts). Counts are those of the 1M real-shaped
// bench set, where every slug is `gen-<n>`: the trigrams a wrong choice would step through.
import { expect, test } from "vitest";
import { candidateTrigrams } from "../../server/operations/search-index.ts";

const SIZE = 1_000_000;
const COUNTS: Record<string, number> = {
  "": SIZE, gen: 1_000_000, " ge": 1_000_000, ena: 4_038, nan: 53_832, hai: 62_896, ain: 67_740,
  " tr": 38_482, tro: 16_570, ron: 14_344, " mo": 29_438, mob: 3_014, obi: 9_030, bil: 5_096, ile: 6_106, lec: 11_350, eco: 32_608, oin: 250_980, coi: 245_276, " co": 124_278,
  " fe": 5_870, feb: 654, eba: 1_851, " ma": 27_650, mas: 4_970, " fi": 55_968, fin: 55_048,
};
const lookup = (trigram: string) => (trigram in COUNTS ? [{ index: "default", documents: COUNTS[trigram]! }] : []);
const chosen = (texts: string[], budget = 1_000) => candidateTrigrams(lookup, budget).match(texts, ["default"])?.parameters.m_default;

test("a trigram nearly every entity holds is never read, however few trigrams the text has", () => {
  expect(chosen(["genan"])).toBe('"ena" AND "nan"');
  expect(chosen([" genan"])).toBe('"ena" AND "nan"');
});

test("each word's rarest trigram comes first: the words together, not one word's four", () => {
  // By rarity alone the four would all be from "mobilecoin" (mob, bil, ile, obi).
  expect(chosen([" tron", " mobilecoin", " coin"])).toBe('"mob" AND "ron"');
});

test("a trigram is read when it spares more candidates than its doclist costs", () => {
  // feb alone leaves ~654 candidates; eba overlaps it ("eb") and still spares most of them.
  expect(chosen([" feba"])).toBe('"eba" AND "feb"');
  // Stepping through 1M entries to spare at most 654 candidates never pays.
  expect(chosen([" feba", " gen"])).toBe('"eba" AND "feb"');
});

test("while the candidates may outnumber the budget, doclists are read up to 64 entries per candidate of the budget", () => {
  // mas alone: 4,970 candidates, more than the budget, so matches would be missed: fin is read
  // (60,018 entries in all, under 64,000), and then nothing else pays.
  expect(chosen([" mas", " fin"])).toBe('"fin" AND "mas"');
  // With half the budget, the same doclists are too long to read.
  expect(chosen([" mas", " fin"], 500)).toBe('"mas"');
});

test("a trigram no entity holds: the index cannot match", () => {
  expect(chosen(["zzqx"])).toBeUndefined();
  expect(chosen([" ab"])).toBeUndefined();
  expect(candidateTrigrams(lookup, 1_000).match(["ab", "c"], ["default"])).toBeUndefined();
});
