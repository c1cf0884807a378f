// A worked import: token lists in the tokenlists.org format (https://tokenlists.org, the format of
// Uniswap's, CoinGecko's, the Superchain and the Solana token lists) to cei sources: tokens.jsonl
// with their contracts, and the projects and X accounts the lists can name. docs/source-format.md
// ("Starting from real data") explains every rule below; this file is meant to be read, run and
// adapted, not a part of the product.
//
//   npx tsx examples/import/tokenlist.ts <list.json>... --out <folder> [--same-token <rule>] [--chain <number>=<caip-2>]...
//
// What it decides, in order:
// - Chains: a list's numeric `chainId` becomes a CAIP-2 chain id: `eip155:<chainId>`, except the
//   numbers lists use for Solana (101, 102, 103, 501000101, 1000000001), or any `--chain` given.
// - Tokens: each entry is one contract; entries that are one asset become one token with several
//   contracts: those an entry's `extensions.bridgeInfo` names (Uniswap's lists), and, with
//   `--same-token extension:<key>`, those with the same `extensions.<key>` (`opTokenId`,
//   `coingeckoId`), or with `--same-token name-symbol`, those with the same name and symbol. A token
//   has one contract per chain: a second entry on a chain stays a token of its own. An address seen
//   twice on one chain is imported once.
// - Ids: a token's id is its first contract, `<chain id>:<address>` (EVM addresses in lower case),
//   so that importing a newer list keeps every id; its slug comes from its name.
// - Projects: an entry whose `extensions.website` is set names the project behind that site: one
//   project per host (without `www.`), named after the host's main label (`orca.so` → Orca), which
//   its tokens name in `project_id`. The site, socials and description are kept, not published.
// - X accounts: an entry whose `extensions.twitter` is set names an account: one record per handle
//   (case and `@` ignored), linked to the project the most entries naming it name (the first on a
//   tie), or to nothing when none names a project (docs/source-format.md, "Shared handles").
// - Entries whose symbol, name or address the compiler would refuse are left out, each reported on
//   stderr with the compiler's own message: the written files always compile.
import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { parseArgs } from "node:util";
import { families } from "../../compiler/families/index.ts";
import { projectSource, type ProjectSource } from "../../compiler/families/projects/source.ts";
import { tokenSource, type TokenSource } from "../../compiler/families/tokens/source.ts";
import { xAccountSource, type XAccountSource } from "../../compiler/families/x-accounts/source.ts";
import { formatIssues } from "../../compiler/issues.ts";
import { asSlug } from "../../compiler/families/value-messages.ts";
import { addressKey, caip2OfListChain } from "../../compiler/families/tokens/contracts.ts";

/** One token of a tokenlists.org list (https://uniswap.org/tokenlist.schema.json); extensions are free-form. */
export interface ListToken {
  chainId: number;
  address: string;
  name: string;
  symbol: string;
  decimals: number;
  logoURI?: string;
  tags?: string[];
  extensions?: Record<string, unknown>;
}

export interface TokenList {
  name: string;
  tokens: ListToken[];
}

export interface ImportOptions {
  /** Which entries are one token besides bridgeInfo: none, the same name and symbol, or the same extension value. */
  sameToken: "none" | "name-symbol" | { extension: string };
  /** Numeric chain ids → CAIP-2 chain ids, beside the defaults. */
  chains: Readonly<Record<number, string>>;
}

export interface ImportResult {
  tokens: TokenSource[];
  projects: ProjectSource[];
  xAccounts: XAccountSource[];
  /** Entries left out, each with why: `<list>: <symbol> <chainId>:<address>: <reason>`. */
  skipped: string[];
  /** Entries read, and contracts merged into another entry's token. */
  entries: number;
  merged: number;
}

/** A list's chain number as a CAIP-2 chain id: `--chain` first, then the compiler's own reading (Solana's numbers, else EIP-155). */
const chainOf = (chainId: number, chains: Readonly<Record<number, string>>): string => chains[chainId] ?? caip2OfListChain(chainId);

const text = (value: unknown): string | undefined => (typeof value === "string" && value.trim() !== "" ? value.trim() : undefined);

/** `https://www.orca.so/` → `orca.so`; undefined when it is not an http(s) URL. */
function hostOf(website: string): string | undefined {
  try {
    const url = new URL(website);
    return /^https?:$/.test(url.protocol) && url.hostname.includes(".") ? url.hostname.toLowerCase().replace(/^www\./, "") : undefined;
  } catch {
    return undefined;
  }
}

/** `orca.so` → `Orca`, `app.uniswap.org` → `Uniswap`: the label before the top-level domain. */
function projectNameOf(host: string): string {
  const labels = host.split(".");
  const main = labels.length >= 2 ? labels[labels.length - 2]! : labels[0]!;
  return main.charAt(0).toUpperCase() + main.slice(1);
}

/** The handle of `https://twitter.com/Orca_so`, `x.com/foo?lang=en`, `@foo` or `foo`; undefined when there is none. */
function handleOf(twitter: string): string | undefined {
  const match = /^(?:(?:https?:\/\/)?(?:(?:www|mobile)\.)?(?:twitter|x)\.com\/)?@?([A-Za-z0-9_]{1,15})\/?(?:[?#].*)?$/i.exec(twitter.trim());
  return match?.[1];
}

/** The problems a schema finds in a record, as `path: message`. */
function problemsOf(schema: typeof tokenSource | typeof projectSource | typeof xAccountSource, record: unknown): string[] {
  const parsed = schema.safeParse(record);
  return parsed.success ? [] : formatIssues(parsed.error.issues, record).map((p) => `${p.path}: ${p.message}`);
}

interface Group {
  entries: Array<{ token: ListToken; chain: string; list: string; listName: string }>;
}

export function importTokenLists(lists: ReadonlyArray<{ file: string; list: TokenList }>, options: ImportOptions): ImportResult {
  const skipped: string[] = [];
  const groups: Group[] = [];
  /** `<chain> <address key>` → its group: an address seen twice is imported once. */
  const byContract = new Map<string, Group>();
  /** The sameToken key → its group. */
  const byKey = new Map<string, Group>();
  let entries = 0;
  let merged = 0;
  const contractKey = (chain: string, address: string) => `${chain} ${addressKey(address)}`;
  /** The contracts an entry's `extensions.bridgeInfo` names (Uniswap's lists): `{"<chainId>": {"tokenAddress": "0x…"}}`. */
  const bridgesOf = (token: ListToken): Array<[chain: string, address: string]> => {
    const bridges = token.extensions?.bridgeInfo;
    if (bridges === null || typeof bridges !== "object") return [];
    return Object.entries(bridges as Record<string, { tokenAddress?: unknown } | null>)
      .filter(([chainId, info]) => /^\d+$/.test(chainId) && typeof info?.tokenAddress === "string")
      .map(([chainId, info]) => [chainOf(Number(chainId), options.chains), info!.tokenAddress as string]);
  };
  const sameTokenKey = (token: ListToken): string | undefined => {
    if (options.sameToken === "none") return undefined;
    if (options.sameToken === "name-symbol") return `${token.name}\u0000${token.symbol}`;
    const value = token.extensions?.[options.sameToken.extension];
    return typeof value === "string" || typeof value === "number" ? String(value) : undefined;
  };

  for (const { file, list } of lists) {
    for (const token of list.tokens) {
      entries++;
      const chain = chainOf(token.chainId, options.chains);
      const entry = { token, chain, list: file, listName: list.name };
      if (byContract.has(contractKey(chain, token.address))) continue;
      // One asset: an earlier entry's bridgeInfo names this contract, or this entry's names an
      // earlier contract, or the sameToken rule matches.
      const key = sameTokenKey(token);
      const bridged = bridgesOf(token).map(([bridgedChain, address]) => byContract.get(contractKey(bridgedChain, address))).find((g) => g !== undefined);
      let group = byContract.get(`bridge ${contractKey(chain, token.address)}`) ?? bridged ?? (key === undefined ? undefined : byKey.get(key));
      if (group !== undefined && group.entries.some((e) => e.chain === chain)) group = undefined;
      if (group === undefined) {
        group = { entries: [] };
        groups.push(group);
        if (key !== undefined && !byKey.has(key)) byKey.set(key, group);
      } else {
        merged++;
      }
      group.entries.push(entry);
      byContract.set(contractKey(chain, token.address), group);
      for (const [bridgedChain, address] of bridgesOf(token)) byContract.set(`bridge ${contractKey(bridgedChain, address)}`, group);
    }
  }

  // Projects, by website host, in order of first appearance.
  const projects = new Map<string, ProjectSource>();
  const projectOfEntry = (token: ListToken): string | undefined => {
    const website = text(token.extensions?.website);
    const host = website === undefined ? undefined : hostOf(website);
    if (host === undefined) return undefined;
    const id = asSlug(host);
    if (!projects.has(id)) {
      const links = Object.entries(token.extensions ?? {})
        .filter(([key, value]) => key !== "website" && typeof value === "string" && /^https?:\/\//.test(value)).map(([, value]) => value as string);
      const description = text(token.extensions?.description);
      projects.set(id, {
        id, slug: id, name: projectNameOf(host),
        ...(description === undefined ? {} : { description }),
        links: [website!, ...links],
        sources: [{ url: website! }],
      });
    }
    return id;
  };

  const tokens: TokenSource[] = [];
  const slugs = new Set<string>();
  /** Handle (lower case) → as first written, and how many entries name it under each project. */
  const handles = new Map<string, { handle: string; projects: Map<string | null, number> }>();
  for (const group of groups) {
    const first = group.entries[0]!.token;
    const projectId = group.entries.map((e) => projectOfEntry(e.token)).find((id) => id !== undefined) ?? null;
    const base = asSlug(first.name) || asSlug(first.symbol) || "token";
    let slug = base;
    for (let n = 2; slugs.has(slug); n++) slug = `${base}-${n}`;
    const firstChain = group.entries[0]!.chain;
    const description = text(first.extensions?.description);
    const record: TokenSource = {
      id: `${firstChain}:${addressKey(first.address)}`,
      slug,
      symbol: first.symbol,
      name: first.name.trim(),
      project_id: projectId,
      contracts: group.entries.map((e) => ({ chain_id: e.chain, address: e.token.address })),
      ...(description === undefined ? {} : { description }),
      ...(first.logoURI === undefined ? {} : { media: [first.logoURI] }),
      raw: { decimals: first.decimals, tags: first.tags ?? [], lists: [...new Set(group.entries.map((e) => e.listName))] },
    };
    const problems = problemsOf(tokenSource, record);
    if (problems.length > 0) {
      skipped.push(`${group.entries[0]!.list}: ${JSON.stringify(first.symbol)} ${firstChain}:${first.address}: ${problems.join("; ")}`);
      continue;
    }
    slugs.add(slug);
    tokens.push(record);
    for (const { token } of group.entries) {
      const twitter = text(token.extensions?.twitter);
      const handle = twitter === undefined ? undefined : handleOf(twitter);
      if (handle === undefined) continue;
      const seen = handles.get(handle.toLowerCase()) ?? { handle, projects: new Map() };
      handles.set(handle.toLowerCase(), seen);
      seen.projects.set(projectId, (seen.projects.get(projectId) ?? 0) + 1);
    }
  }

  // Only the projects a written token names.
  const named = new Set(tokens.map((t) => t.project_id).filter((id): id is string => typeof id === "string"));
  const projectRecords = [...projects.values()].filter((p) => named.has(p.id));

  const xAccounts: XAccountSource[] = [];
  for (const { handle, projects: counts } of handles.values()) {
    // The project the most entries naming the handle name; the first on a tie.
    let best: string | null = null;
    let most = 0;
    for (const [project, n] of counts) if (project !== null && n > most) [best, most] = [project, n];
    const record: XAccountSource = { handle, linked_entity: best === null ? null : { type: "project", id: best } };
    const problems = problemsOf(xAccountSource, record);
    if (problems.length > 0) skipped.push(`X account ${JSON.stringify(handle)}: ${problems.join("; ")}`);
    else xAccounts.push(record);
  }
  return { tokens, projects: projectRecords, xAccounts, skipped, entries, merged };
}

/** Writes tokens.jsonl, projects.jsonl and x_accounts.jsonl into `dir`, and an empty file for every other family file not there yet. */
export function writeImport(dir: string, result: ImportResult): void {
  mkdirSync(dir, { recursive: true });
  const jsonl = (records: readonly unknown[]) => records.map((r) => JSON.stringify(r)).join("\n") + (records.length > 0 ? "\n" : "");
  writeFileSync(join(dir, "tokens.jsonl"), jsonl(result.tokens));
  writeFileSync(join(dir, "projects.jsonl"), jsonl(result.projects));
  writeFileSync(join(dir, "x_accounts.jsonl"), jsonl(result.xAccounts));
  for (const { file } of families) if (!existsSync(join(dir, file))) writeFileSync(join(dir, file), "");
}

/** `--same-token name-symbol`, `--same-token extension:opTokenId`; default none. */
function parseSameToken(value: string | undefined): ImportOptions["sameToken"] {
  if (value === undefined || value === "none") return "none";
  if (value === "name-symbol") return "name-symbol";
  const match = /^extension:(\w+)$/.exec(value);
  if (match === null) throw new Error(`--same-token: expected none, name-symbol or extension:<key>, not ${JSON.stringify(value)}`);
  return { extension: match[1]! };
}

/** `--chain 42161=eip155:42161`, `--chain 101=solana:5eykt4UsFv8P8NJdTREpY1vzqKqZKvdp`. */
function parseChains(values: readonly string[]): Record<number, string> {
  const chains: Record<number, string> = {};
  for (const value of values) {
    const match = /^(\d+)=([-a-z0-9]{3,8}:[-_a-zA-Z0-9]{1,32})$/.exec(value);
    if (match === null) throw new Error(`--chain: expected <number>=<CAIP-2 chain id>, such as 101=${caip2OfListChain(101)}, not ${JSON.stringify(value)}`);
    chains[Number(match[1])] = match[2]!;
  }
  return chains;
}

function main(argv: readonly string[]): number {
  const { values, positionals } = parseArgs({
    args: [...argv],
    allowPositionals: true,
    options: { out: { type: "string" }, "same-token": { type: "string" }, chain: { type: "string", multiple: true } },
  });
  if (values.out === undefined || positionals.length === 0) {
    process.stderr.write("usage: npx tsx examples/import/tokenlist.ts <list.json>... --out <folder> [--same-token none|name-symbol|extension:<key>] [--chain <number>=<caip-2>]...\n");
    return 2;
  }
  const lists = positionals.map((file) => ({ file, list: JSON.parse(readFileSync(file, "utf8")) as TokenList }));
  const result = importTokenLists(lists, { sameToken: parseSameToken(values["same-token"]), chains: parseChains(values.chain ?? []) });
  writeImport(values.out, result);
  for (const line of result.skipped) process.stderr.write(`skipped: ${line}\n`);
  process.stderr.write(
    `${result.entries} entries: ${result.tokens.length} tokens (${result.merged} contracts merged into another entry's token), ` +
      `${result.projects.length} projects, ${result.xAccounts.length} X accounts; ${result.skipped.length} left out; written to ${values.out}\n`,
  );
  return 0;
}

if (process.argv[1] !== undefined && import.meta.url === pathToFileURL(process.argv[1]).href) process.exitCode = main(process.argv.slice(2));
