// The adversarial search set: the index's most common trigrams and bigrams, each alone
// (the six default families) and with every single `types` value, at the largest limit. Plus texts
// glued from two common trigrams, whose candidates mostly fail the whole-text check: the searches
// that run into the candidate limit.
import type Database from "better-sqlite3";
import { searchFamilies, type SearchFamily } from "../server/operations/search-index.ts";

export const ADVERSARIAL_TOP = 400;
const GLUED_TOP = 30;

export interface AdversarialQuery { kind: "trigram" | "bigram" | "glued"; q: string; types?: SearchFamily[] }

/** Texts the API refuses (no letter or digit, under 2 characters once trimmed) are left out. */
const acceptable = (text: string) => text.trim().length >= 2 && /[\p{L}\p{N}]/u.test(text);

export function adversarialQueries(snapshot: Database.Database): { queries: AdversarialQuery[]; refused: number } {
  const trigrams = snapshot
    .prepare<[number], string>(`SELECT trigram FROM search_trigrams WHERE search_index <> 'default' AND trigram <> '' AND trigram NOT LIKE '%' || char(10) || '%'
      GROUP BY trigram ORDER BY sum(documents) DESC, trigram LIMIT ?`)
    .pluck().all(ADVERSARIAL_TOP);
  const bigrams = _commonBigrams(snapshot, ADVERSARIAL_TOP);
  const glued = trigrams.slice(0, GLUED_TOP).flatMap((a) => trigrams.slice(0, GLUED_TOP).filter((b) => b !== a).map((b) => a + b));
  const texts = [
    ...trigrams.map((q) => ({ kind: "trigram" as const, q })),
    ...bigrams.map((q) => ({ kind: "bigram" as const, q })),
  ];
  const accepted = texts.filter((t) => acceptable(t.q));
  const queries: AdversarialQuery[] = [
    ...accepted.flatMap((t) => [t, ...searchFamilies.map((family) => ({ ...t, types: [family] }))]),
    ...glued.filter(acceptable).map((q) => ({ kind: "glued" as const, q })),
  ];
  return { queries, refused: texts.length - accepted.length };
}

/** Bigrams by the number of folded names and slugs holding them (the index stores trigram counts only). */
function _commonBigrams(snapshot: Database.Database, top: number): string[] {
  const counts = new Map<string, number>();
  for (const key of snapshot.prepare<[], string>("SELECT coalesce(name, '') || ' ' || coalesce(slug, '') FROM search_entities").pluck().iterate()) {
    const chars = [...key];
    const seen = new Set<string>();
    for (let i = 0; i + 2 <= chars.length; i++) {
      const bigram = chars[i]! + chars[i + 1]!;
      if (seen.has(bigram)) continue;
      seen.add(bigram);
      counts.set(bigram, (counts.get(bigram) ?? 0) + 1);
    }
  }
  return [...counts].sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : 1)).slice(0, top).map(([bigram]) => bigram);
}
