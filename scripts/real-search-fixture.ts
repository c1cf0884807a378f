// Writes fixtures/real-search/ (the search relevance suite's data) from public sources, in our
// curated source format: one project and one token per CoinGecko coin, X accounts from the
// ethereum-lists token registry, and a curated `prominence` from public signals. The output
// depends only on the inputs (sorted, no clock). Origins, commits and licences: the README beside
// the fixture. Run:
//   npx tsx scripts/real-search-fixture.ts --coingecko <CoinGecko_symbols.md> \
//     --ethereum-lists <tokens folder> --ranks <constants.py> --out fixtures/real-search
import { mkdirSync, readdirSync, readFileSync, statSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { parseArgs } from "node:util";
import { fold } from "../snapshot/fold.ts";

interface Coin { id: string; symbol: string; name: string }

/** Coins that the 2020 list predates, as CoinGecko lists them (README: "Supplement"). */
const SUPPLEMENT: readonly Coin[] = [
  { id: "fenerbahce-token", symbol: "fb", name: "Fenerbahçe Token" },
  { id: "istanbul-basaksehir-fan-token", symbol: "ibfk", name: "İstanbul Başakşehir Fan Token" },
  { id: "clube-atletico-mineiro-fan-token", symbol: "galo", name: "Clube Atlético Mineiro Fan Token" },
  { id: "the-peoples-coin", symbol: "peeps", name: "The People’s Coin" },
];
/** Curated prominence of a coin in the public ethereum-lists registry (maintained metadata, a verified contract). */
const REGISTERED_PROMINENCE = 100;
const SYMBOL = /^[A-Za-z0-9.$-]{1,20}$/;
const HANDLE = /^[A-Za-z0-9_]{1,15}$/;

const { values } = parseArgs({ options: { coingecko: { type: "string" }, "ethereum-lists": { type: "string" }, ranks: { type: "string" }, out: { type: "string" } } });
if (values.coingecko === undefined || values["ethereum-lists"] === undefined || values.ranks === undefined || values.out === undefined) {
  throw new Error("usage: --coingecko <md> --ethereum-lists <dir> --ranks <constants.py> --out <dir>");
}

const coins = [..._coinGeckoList(readFileSync(values.coingecko, "utf8")), ...SUPPLEMENT].sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
const ranks = _marketCapRanks(readFileSync(values.ranks, "utf8"));
const registry = _registry(values["ethereum-lists"]);

const projects: object[] = [];
const tokens: object[] = [];
const accounts = new Map<string, object>();
const slugs = new Set<string>();
for (const coin of coins) {
  const base = coin.id.toLowerCase().replace(/[^a-z0-9]+/g, "-").replace(/^-+|-+$/g, "") || "coin";
  let slug = base;
  for (let n = 2; slugs.has(slug); n++) slug = `${base}-${n}`;
  slugs.add(slug);
  const registered = registry.get(`${coin.symbol.toLowerCase()} ${fold(coin.name)}`);
  const rank = ranks.get(coin.id);
  const prominence = rank !== undefined ? 1001 - rank : registered !== undefined ? REGISTERED_PROMINENCE : undefined;
  const projectId = `project:${coin.id}`;
  projects.push({ id: projectId, slug, name: coin.name, ...(prominence === undefined ? {} : { prominence }) });
  if (SYMBOL.test(coin.symbol)) {
    tokens.push({ id: `token:${coin.id}`, slug, symbol: coin.symbol.toUpperCase(), name: coin.name, project_id: projectId, ...(prominence === undefined ? {} : { prominence }) });
  }
  const handle = registered?.handle;
  if (handle !== undefined && !accounts.has(handle.toLowerCase())) {
    accounts.set(handle.toLowerCase(), { handle, linked_entity: { type: "project", id: projectId } });
  }
}

mkdirSync(values.out, { recursive: true });
const lines = (records: object[]) => records.map((record) => JSON.stringify(record) + "\n").join("");
writeFileSync(join(values.out, "projects.jsonl"), lines(projects));
writeFileSync(join(values.out, "tokens.jsonl"), lines(tokens));
writeFileSync(join(values.out, "x_accounts.jsonl"), lines([...accounts.values()]));
for (const empty of ["events", "funds", "news", "people", "stocks", "trending"]) writeFileSync(join(values.out, `${empty}.jsonl`), "");
process.stdout.write(`${projects.length} projects, ${tokens.length} tokens, ${accounts.size} X accounts written to ${values.out}\n`);

/** The rows `id | symbol | name` of cryptofeed's CoinGecko table, without its normalised-symbol marks. */
function _coinGeckoList(markdown: string): Coin[] {
  const unmark = (cell: string) => cell.replace(/\s*[🥇💥]+\s*`[^`]*`/gu, "").trim();
  return markdown.split("\n")
    .filter((line) => line.split(" | ").length === 3 && !line.startsWith("id |") && !line.startsWith("---"))
    .map((line) => line.split(" | ").map(unmark))
    .filter(([id, symbol, name]) => id !== "" && symbol !== "" && name !== "")
    .map(([id, symbol, name]) => ({ id: id!, symbol: symbol!, name: name! }));
}

/** CoinGecko id → market-cap rank, from a list of `{"id": ..., "market_cap_rank": n}` objects. */
function _marketCapRanks(text: string): Map<string, number> {
  const ranks = new Map<string, number>();
  for (const match of text.matchAll(/"id":\s*"([^"]+)"[^}]*?"market_cap_rank":\s*(\d+)/g)) ranks.set(match[1]!, Number(match[2]));
  return ranks;
}

/** `symbol folded-name` → the registry's X handle (if any) for every token of ethereum-lists/tokens. */
function _registry(dir: string): Map<string, { handle: string | undefined }> {
  const found = new Map<string, { handle: string | undefined }>();
  const files = readdirSync(dir).flatMap((chain) => {
    const path = join(dir, chain);
    return statSync(path).isDirectory() ? readdirSync(path).sort().map((file) => join(path, file)) : [];
  }).sort();
  for (const file of files) {
    const token = JSON.parse(readFileSync(file, "utf8")) as { symbol?: string; name?: string; social?: { twitter?: string } };
    if (typeof token.symbol !== "string" || typeof token.name !== "string") continue;
    const twitter = token.social?.twitter?.replace(/\/+$/, "").split("/").pop()?.replace(/^@/, "").split("?")[0];
    const key = `${token.symbol.toLowerCase()} ${fold(token.name)}`;
    if (!found.has(key)) found.set(key, { handle: twitter !== undefined && HANDLE.test(twitter) ? twitter : undefined });
  }
  return found;
}
