// One call of each operation, each answer read through the generated types, against a running server:
// `CEI_KEY=<key> npx tsx clients/typescript/example.ts` (`npm start` prints a key and serves the
// bundled sample on http://127.0.0.1:8787; CEI_BASE_URL to change). Ids default to the sample's
// ones used in docs/api.md; the X account id depends on the installation's secret, so it is taken
// from the trending list.
import { pathToFileURL } from "node:url";
import { createCeiClient, type CeiClient } from "./index.ts";

/** Identifiers to call the operations with: found by search, or taken from the docs. */
export interface Ids {
  projectSlug: string;
  personSlug: string;
  personQuery: string;
  tokenId: string;
  newsId: string;
  xAccountId: string;
  eventSlug: string;
}

/** One line per operation, keyed by operation id. */
export async function callEveryOperation(cei: CeiClient, ids: Ids): Promise<Record<string, string>> {
  const lines: Record<string, string> = {};
  const project = { slug: ids.projectSlug };
  const person = { slug: ids.personSlug };

  const search = await cei.call("search_entities", { q: ids.projectSlug, types: ["project"], limit: 3 });
  lines.search_entities = search.data.results.map((hit) => `${hit.type}:${hit.id}`).join(" ");
  const people = await cei.call("search_people", { query: ids.personQuery, limit: 3 });
  lines.search_people = people.data.results.map((hit) => hit.full_name).join(", ");
  const investments = await cei.call("get_person_investments", { ...person, limit: 3 });
  lines.get_person_investments = `${investments.data.person.full_name}: ${investments.data.investment_count} investments`;
  const roles = await cei.call("get_person_roles", person);
  lines.get_person_roles = roles.data.results.map((role) => `${role.project.name}${role.is_current ? " (current)" : ""}`).join(", ");
  const detail = await cei.call("get_project", project);
  lines.get_project = `${detail.data.name} (${detail.data.id})`;
  const features = await cei.call("get_project_features", project);
  lines.get_project_features = features.data.features.map((feature) => feature.display_name).join(", ");
  const events = await cei.call("get_project_events", project);
  lines.get_project_events = events.data.events.map((event) => `${event.type}@${event.occurred_at}`).join(", ");
  const funding = await cei.call("get_project_funding", project);
  lines.get_project_funding = funding.data.rounds.map((round) => `${round.round_type} $${round.amount_usd}`).join(", ");
  const market = await cei.call("get_project_market", project);
  lines.get_project_market = `TVL $${market.data.tvl_usd} on ${market.data.as_of}`;
  const tokenomics = await cei.call("get_tokenomics", { id: ids.tokenId });
  lines.get_tokenomics = `${tokenomics.data.token.symbol}: ${tokenomics.data.allocations.length} allocations`;
  const movers = await cei.call("list_market_top_movers", { period: "24h", limit: 3 });
  lines.list_market_top_movers = movers.data.gainers.map((token) => `${token.symbol} ${token.change_pct}%`).join(", ");
  const snapshot = await cei.call("get_market_snapshot");
  lines.get_market_snapshot = `BTC $${snapshot.data.btc_price_usd}, ${snapshot.data.represented_asset_count} assets`;
  const stocks = await cei.call("list_stock_rankings", { region: "all", limit: 3 });
  lines.list_stock_rankings = stocks.data.results.map((stock) => `${stock.rank}. ${stock.ticker}`).join(", ");
  const funds = await cei.call("list_fund_rankings", { limit: 3 });
  lines.list_fund_rankings = funds.data.results.map((fund) => `${fund.rank}. ${fund.name}`).join(", ");
  const trending = await cei.call("list_trending_entities", { limit: 3 });
  lines.list_trending_entities = trending.data.results.map((entry) => `${entry.rank}. ${entry.type}:${entry.id}`).join(", ");
  const news = await cei.call("get_news", { id: ids.newsId });
  lines.get_news = `${news.data.title} (${news.data.published_at})`;
  const xAccount = await cei.call("get_x_account", { id: ids.xAccountId });
  lines.get_x_account = `${xAccount.data.id} → ${xAccount.data.linked_entity?.type ?? "unlinked"}`;
  const event = await cei.call("get_event", { slug: ids.eventSlug });
  lines.get_event = `${event.data.name}, ${event.data.city}: ${event.data.status}`;
  const key = await cei.call("get_key");
  lines.get_key = `${key.data.id} (${key.data.tier}): ${key.data.credits_remaining} credits left`;
  return lines;
}

if (process.argv[1] !== undefined && import.meta.url === pathToFileURL(process.argv[1]).href) {
  const apiKey = process.env.CEI_KEY;
  if (apiKey === undefined || apiKey === "") {
    process.stderr.write("set CEI_KEY to an API key (npm start prints one)\n");
    process.exit(2);
  }
  const cei = createCeiClient({ baseUrl: process.env.CEI_BASE_URL ?? "http://127.0.0.1:8787", apiKey });
  const trendingX = await cei.call("list_trending_entities", { entity_type: "x_account", limit: 1 });
  const lines = await callEveryOperation(cei, {
    projectSlug: process.env.CEI_PROJECT_SLUG ?? "lugex-labs",
    personSlug: process.env.CEI_PERSON_SLUG ?? "tobor-davur-6",
    personQuery: process.env.CEI_PERSON_QUERY ?? "tobor",
    tokenId: process.env.CEI_TOKEN_ID ?? "tok_0011",
    newsId: process.env.CEI_NEWS_ID ?? "story:0264af95-6903-418e-a6ae-902f67da17ce",
    xAccountId: process.env.CEI_X_ACCOUNT_ID ?? trendingX.data.results[0]!.id,
    eventSlug: process.env.CEI_EVENT_SLUG ?? "nebas-expo-2026",
  });
  for (const [operation, line] of Object.entries(lines)) process.stdout.write(`${operation}: ${line}\n`);
}
