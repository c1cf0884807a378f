// How tiers and scopes are stored in the meter file, and read back checked against policy.ts.
import { scopes as allScopes, tiers, type Scope, type Tier } from "../policy.ts";

const knownTiers: ReadonlySet<string> = new Set(tiers);
const knownScopes: ReadonlySet<string> = new Set(allScopes);

export function isTier(value: string): value is Tier {
  return knownTiers.has(value);
}

export function isScope(value: string): value is Scope {
  return knownScopes.has(value);
}

export function tierFromColumn(value: string): Tier {
  if (!isTier(value)) throw new Error(`meter file holds an unknown tier "${value}"`);
  return value;
}

/** Scopes are stored comma-separated in policy order, so equal sets are equal strings. */
export function scopesToColumn(scopes: Iterable<Scope>): string {
  const chosen = new Set(scopes);
  return allScopes.filter((scope) => chosen.has(scope)).join(",");
}

// A key's scopes column is parsed once per distinct value, not once per request.
const parsedScopes = new Map<string, ReadonlySet<Scope>>();

export function scopesFromColumn(value: string): ReadonlySet<Scope> {
  let parsed = parsedScopes.get(value);
  if (parsed === undefined) {
    const names = value === "" ? [] : value.split(",");
    for (const name of names) {
      if (!isScope(name)) throw new Error(`meter file holds an unknown scope "${name}"`);
    }
    parsed = new Set(names as Scope[]);
    parsedScopes.set(value, parsed);
  }
  return parsed;
}
