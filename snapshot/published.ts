// What a snapshot publishes, family by family, from its manifest: how many valid source records
// were curated, how many records were written (the family's table in snapshot/specs.ts), and which
// accepted fields were dropped as never written, with how many records carry each. `cei compile`
// prints it after every successful compile and `cei inspect` reports it, so that a curator learns
// what is not published without querying for it.
import { CURATED_FAMILIES } from "./curated.ts";
import { familySpecs } from "./specs.ts";

export interface FamilyPublished {
  /** Valid source records. */
  curated: number;
  /** Records written to the family's table; null for trending signals, which are only ranked. */
  written: number | null;
  /** Accepted fields never written → the records (or list items) carrying them, most carried first. */
  not_published: Record<string, number>;
}

/** Per family, in the families' order. */
export function publishedOf(manifest: Readonly<Record<string, unknown>>): Record<string, FamilyPublished> {
  const curated = (manifest.curated ?? {}) as Record<string, number>;
  const rowCounts = (manifest.row_counts ?? {}) as Record<string, number>;
  const notPublished = (manifest.not_published ?? {}) as Record<string, Record<string, number>>;
  const out: Record<string, FamilyPublished> = {};
  for (const family of CURATED_FAMILIES) {
    const table = familySpecs.find((spec) => spec.name === family)?.table;
    const fields = Object.entries(notPublished[family] ?? {});
    // Most carried first; the schema's order on a tie (a stable sort keeps it).
    fields.sort(([, a], [, b]) => b - a);
    out[family] = { curated: curated[family] ?? 0, written: table === undefined ? null : (rowCounts[table] ?? 0), not_published: Object.fromEntries(fields) };
  }
  return out;
}

/** Fields listed per family in the text; `cei inspect` lists all of them. */
export const PUBLISHED_FIELDS_SHOWN = 8;

const count = (n: number): string => n.toLocaleString("en-US");

/**
 * One line per family with records: `projects  2,213 curated, 2,200 written; not published:
 * links 2,213, description 2,100, ...`.
 */
export function publishedText(published: Readonly<Record<string, FamilyPublished>>): string {
  const families = Object.entries(published).filter(([, p]) => p.curated > 0);
  if (families.length === 0) return "published: nothing (every family file is empty)\n";
  const width = Math.max(...families.map(([name]) => name.length));
  const lines = families.map(([name, p]) => {
    const written = p.written === null ? "ranked into the trending snapshots" : `${count(p.written)} written`;
    const fields = Object.entries(p.not_published);
    const shown = fields.slice(0, PUBLISHED_FIELDS_SHOWN).map(([field, n]) => `${field} ${count(n)}`);
    const more = fields.length > shown.length ? `, and ${fields.length - shown.length} more (cei inspect lists them)` : "";
    const dropped = fields.length === 0 ? "" : `; accepted and not published: ${shown.join(", ")}${more}`;
    return `  ${name.padEnd(width)}  ${count(p.curated)} curated, ${written}${dropped}`;
  });
  return `published (per family: records curated and written; fields accepted and not published, with the records carrying each):\n${lines.join("\n")}\n`;
}
