// A typed client of the API: types generated from docs/openapi.json by openapi-typescript
// (api.d.ts), requests through openapi-fetch. One call per operation; each answer's fields are
// read through the generated types, so a changed contract fails `npm run typecheck` here.
import createClient from "openapi-fetch";
import type { paths } from "./api.d.ts";

export type CeiClient = ReturnType<typeof createClient<paths>>;

export function ceiClient(baseUrl: string, apiKey: string): CeiClient {
  return createClient<paths>({ baseUrl, headers: { Authorization: `Bearer ${apiKey}` } });
}

/** Identifiers to call the operations with: found by search, or taken from the docs. */
export interface Ids {
  projectSlug: string;
  personSlug: string;
  personQuery: string;
  tokenId: string;
  newsId: string;
  xAccountId: string;
  eventSlug: string;
  narrativeSlug: string;
  fundSlug: string;
  stockSlug: string;
}

/** The success envelope, or an Error carrying the API's error envelope. */
function ok<T>(operation: string, answer: { data?: T; error?: unknown; response: Response }): NonNullable<T> {
  if (answer.data === undefined) throw new Error(`${operation}: HTTP ${answer.response.status} ${JSON.stringify(answer.error)}`);
  return answer.data as NonNullable<T>;
}

/** One line per operation, keyed by operation id, each read through the generated types. */
export async function callEveryOperation(client: CeiClient, ids: Ids): Promise<Record<string, string>> {
  const lines: Record<string, string> = {};
  const project = { params: { path: { slug: ids.projectSlug } } };
  const person = { params: { path: { slug: ids.personSlug } } };

  const search = ok("search_entities", await client.POST("/v1/search", { body: { q: ids.projectSlug, types: ["project"], limit: 3 } }));
  lines.search_entities = search.data.results.map((hit) => `${hit.type}:${hit.id}`).join(" ");
  const people = ok("search_people", await client.GET("/v1/people/search", { params: { query: { query: ids.personQuery, limit: 3 } } }));
  lines.search_people = people.data.results.map((hit) => hit.full_name).join(", ");
  const investments = ok("get_person_investments", await client.GET("/v1/people/{slug}/investments", { params: { ...person.params, query: { limit: 3 } } }));
  lines.get_person_investments = `${investments.data.person.full_name}: ${investments.data.investment_count} investments`;
  const roles = ok("get_person_roles", await client.GET("/v1/people/{slug}/roles", person));
  lines.get_person_roles = roles.data.results.map((role) => `${role.project.name}${role.is_current ? " (current)" : ""}`).join(", ");
  const detail = ok("get_project", await client.GET("/v1/projects/{slug}", project));
  lines.get_project = `${detail.data.name} (${detail.data.id})`;
  const features = ok("get_project_features", await client.GET("/v1/projects/{slug}/features", project));
  lines.get_project_features = features.data.features.map((feature) => feature.display_name).join(", ");
  const events = ok("get_project_events", await client.GET("/v1/projects/{slug}/events", project));
  lines.get_project_events = events.data.events.map((event) => `${event.type}@${event.occurred_at}`).join(", ");
  const funding = ok("get_project_funding", await client.GET("/v1/projects/{slug}/funding", project));
  lines.get_project_funding = funding.data.rounds.map((round) => `${round.round_type} $${round.amount_usd}`).join(", ");
  const market = ok("get_project_market", await client.GET("/v1/projects/{slug}/market", project));
  lines.get_project_market = `TVL $${market.data.tvl_usd} on ${market.data.as_of}`;
  const tokenomics = ok("get_tokenomics", await client.GET("/v1/tokenomics/{id}", { params: { path: { id: ids.tokenId } } }));
  lines.get_tokenomics = `${tokenomics.data.token.symbol}: ${tokenomics.data.allocations.length} allocations`;
  const movers = ok("list_market_top_movers", await client.GET("/v1/markets/top-movers", { params: { query: { period: "24h", limit: 3 } } }));
  lines.list_market_top_movers = movers.data.gainers.map((token) => `${token.symbol} ${token.change_pct}%`).join(", ");
  const snapshot = ok("get_market_snapshot", await client.GET("/v1/markets/snapshot"));
  lines.get_market_snapshot = `BTC $${snapshot.data.btc_price_usd}, ${snapshot.data.represented_asset_count} assets`;
  const stocks = ok("list_stock_rankings", await client.GET("/v1/stocks/rankings", { params: { query: { region: "all", limit: 3 } } }));
  lines.list_stock_rankings = stocks.data.results.map((stock) => `${stock.rank}. ${stock.ticker}`).join(", ");
  const funds = ok("list_fund_rankings", await client.GET("/v1/funds/rankings", { params: { query: { limit: 3 } } }));
  lines.list_fund_rankings = funds.data.results.map((fund) => `${fund.rank}. ${fund.name}`).join(", ");
  const trending = ok("list_trending_entities", await client.GET("/v1/discover/trending", { params: { query: { limit: 3 } } }));
  lines.list_trending_entities = trending.data.results.map((entry) => `${entry.rank}. ${entry.type}:${entry.id}`).join(", ");
  const news = ok("get_news", await client.GET("/v1/news/{id}", { params: { path: { id: ids.newsId } } }));
  lines.get_news = `${news.data.title} (${news.data.published_at})`;
  const xAccount = ok("get_x_account", await client.GET("/v1/x-accounts/{id}", { params: { path: { id: ids.xAccountId } } }));
  lines.get_x_account = `${xAccount.data.id} → ${xAccount.data.linked_entity?.type ?? "unlinked"}`;
  const event = ok("get_event", await client.GET("/v1/events/{slug}", { params: { path: { slug: ids.eventSlug } } }));
  lines.get_event = `${event.data.name}, ${event.data.city}: ${event.data.status}`;
  const token = ok("get_token", await client.GET("/v1/tokens/{id}", { params: { path: { id: ids.tokenId } } }));
  lines.get_token = `${token.data.symbol} of ${token.data.project?.name ?? "no project"}${token.data.market === null ? "" : `, rank ${token.data.market.rank}`}`;
  const unlocks = ok("get_token_unlocks", await client.GET("/v1/tokens/{id}/unlocks", { params: { path: { id: ids.tokenId }, query: { days: 365, limit: 3 } } }));
  lines.get_token_unlocks = `${unlocks.data.unlock_count} unlocks by ${unlocks.data.window_end}: ${unlocks.data.unlocks.map((u) => `${u.allocation_bucket}@${u.unlock_at}`).join(", ")}`;
  const narratives = ok("list_narratives", await client.GET("/v1/narratives", { params: { query: { limit: 3 } } }));
  lines.list_narratives = narratives.data.results.map((narrative) => `${narrative.rank}. ${narrative.name}`).join(", ");
  const narrative = ok("get_narrative", await client.GET("/v1/narratives/{slug}", { params: { path: { slug: ids.narrativeSlug } } }));
  lines.get_narrative = `${narrative.data.name}: ${narrative.data.project_count} projects, ${narrative.data.timeline.length} dated entries`;
  const fund = ok("get_fund", await client.GET("/v1/funds/{slug}", { params: { path: { slug: ids.fundSlug } } }));
  lines.get_fund = `${fund.data.name}: ${fund.data.portfolio_count} portfolio projects, partners ${fund.data.partners.map((p) => p.full_name).join(", ")}`;
  const stockNews = ok("get_stock_news", await client.GET("/v1/stocks/{slug}/news", { params: { path: { slug: ids.stockSlug } } }));
  lines.get_stock_news = `${stockNews.data.stock.ticker}: ${stockNews.data.stories.map((story) => story.title).join(" | ")}`;
  const key = ok("get_key", await client.GET("/v1/key"));
  lines.get_key = `${key.data.id} (${key.data.tier}): ${key.data.credits_remaining} credits left`;
  return lines;
}
