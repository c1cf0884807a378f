// Identity of every record by index: id, name, slug (and symbol, fund type, X handle). Pure
// functions, so that references between families always name records that exist.
import { FUND_WORDS, NARRATIVE_THEMES, PROJECT_WORDS, STOCK_WORDS, baseName, personName, slugify, symbolOf } from "./_names.ts";
import { nextVisible, padded, type Plan } from "./plan.ts";
import { rngFor } from "./_prng.ts";
import { fundTypes } from "../compiler/families/funds/source.ts";

export interface ProjectIdentity { id: string; slug: string; name: string }
export interface TokenIdentity { id: string; slug: string; symbol: string; name: string }
export interface PersonIdentity { id: string; slug: string; full_name: string }
export interface FundIdentity { id: string; slug: string; name: string; fund_type: (typeof fundTypes)[number] }

export function projectIdentity(index: number): ProjectIdentity {
  const name = `${baseName(index, 11)} ${PROJECT_WORDS[index % PROJECT_WORDS.length]!}`;
  return { id: padded("prj", index), slug: slugify(name), name };
}

/** Wrapped duplicates of other assets: curators mark their market observation ineligible. */
export const isWrappedToken = (index: number): boolean => index % 41 === 23;

export function tokenIdentity(index: number): TokenIdentity {
  const base = baseName(index, 5003);
  const wrapped = isWrappedToken(index);
  const name = wrapped ? `Wrapped ${base}` : base;
  const symbol = wrapped ? `W${symbolOf(base)}` : symbolOf(base);
  return { id: padded("tok", index), slug: slugify(name), symbol, name };
}

export function personIdentity(index: number): PersonIdentity {
  const fullName = personName(rngFor("person-name", index));
  return { id: padded("per", index), slug: `${slugify(fullName)}-${index + 1}`, full_name: fullName };
}

export function fundIdentity(index: number): FundIdentity {
  const fundType = fundTypes[index % fundTypes.length]!;
  const words = FUND_WORDS[fundType]!;
  const name = `${baseName(index, 12007)} ${words[Math.floor(index / fundTypes.length) % words.length]!}`;
  return { id: padded("fnd", index), slug: slugify(name), name, fund_type: fundType };
}

export function stockName(index: number): string {
  return `${baseName(index, 17011)} ${STOCK_WORDS[index % STOCK_WORDS.length]!}`;
}

export interface StockIdentity { id: string; slug: string; name: string }

export function stockIdentity(index: number): StockIdentity {
  const name = stockName(index);
  return { id: padded("stk", index), slug: slugify(name), name };
}

export interface NarrativeIdentity { id: string; slug: string; name: string }

/** The first narratives are real themes; past them (larger scales) an invented word names the theme. */
export function narrativeIdentity(index: number): NarrativeIdentity {
  const theme = NARRATIVE_THEMES[index % NARRATIVE_THEMES.length]!;
  const name = index < NARRATIVE_THEMES.length ? theme : `${baseName(index, 31013)} ${theme}`;
  return { id: padded("nar", index), slug: slugify(name), name };
}

export interface XAccountIdentity {
  handle: string;
  link: { type: "project" | "person"; id: string; name: string } | null;
}

/**
 * X account `index`: most are linked to a visible project (even index) or person (odd), a few
 * are unlinked. The handle is derived from the linked name and made unique by the index.
 */
export function xAccountIdentity(plan: Plan, index: number): XAccountIdentity {
  let link: XAccountIdentity["link"] = null;
  if (index % 10 !== 9) {
    if (index % 2 === 0) {
      const project = projectIdentity(nextVisible(plan, "projects", index * 13 + 5));
      link = { type: "project", id: project.id, name: project.name };
    } else {
      const person = personIdentity(nextVisible(plan, "people", index * 7 + 3));
      link = { type: "person", id: person.id, name: person.full_name };
    }
  }
  const suffix = index.toString(36);
  const stem = link === null ? baseName(index, 29009) : link.name;
  const letters = stem.toLowerCase().replace(/[^a-z0-9]/g, "").slice(0, 14 - suffix.length);
  return { handle: `${letters}_${suffix}`, link };
}
