// The 25 operations as a caller sees them: one valid request each against the snapshot compiled
// from fixtures/valid, and the scope that product decision 8 gives it. The scope column is written
// out here from the decision's text, not read from server/policy.ts, so that a wrong policy table
// fails the tests instead of agreeing with them.
import type { Scope } from "../../server/policy.ts";
import { routes } from "../../server/routes.ts";

export interface OperationCall {
  operation: string;
  scope: Scope;
  method: "GET" | "POST";
  path: string;
  body?: unknown;
  /** Credits, as published in docs/operations.md. */
  cost: number;
}

/**
 * Decision 8: 1 search; 2-4 people; 5-10 projects; 11 tokens; 12-13 markets; 14 stocks; 15 funds; 16 discovery; 17 news; 18 x_accounts; 19 events.
 * Decision 31: 20-21 tokens; 22-23 narratives; 24 funds; 25 stocks.
 */
export const operationCalls: readonly OperationCall[] = [
  { operation: "search_entities", scope: "search", method: "POST", path: "/v1/search", body: { q: "aurora", limit: 5 }, cost: 2 },
  { operation: "search_people", scope: "people", method: "GET", path: "/v1/people/search?query=alice", cost: 2 },
  { operation: "get_person_investments", scope: "people", method: "GET", path: "/v1/people/alice-nakamoto/investments", cost: 1 },
  { operation: "get_person_roles", scope: "people", method: "GET", path: "/v1/people/alice-nakamoto/roles", cost: 1 },
  { operation: "get_project", scope: "projects", method: "GET", path: "/v1/projects/aurora-swap", cost: 1 },
  { operation: "get_project_features", scope: "projects", method: "GET", path: "/v1/projects/aurora-swap/features", cost: 1 },
  { operation: "get_project_events", scope: "projects", method: "GET", path: "/v1/projects/aurora-swap/events", cost: 1 },
  { operation: "get_project_funding", scope: "projects", method: "GET", path: "/v1/projects/aurora-swap/funding", cost: 1 },
  { operation: "get_project_market", scope: "projects", method: "GET", path: "/v1/projects/aurora-swap/market", cost: 1 },
  { operation: "list_trending_projects", scope: "projects", method: "GET", path: "/v1/projects/trending", cost: 1 },
  { operation: "get_tokenomics", scope: "tokens", method: "GET", path: "/v1/tokenomics/tok_aur", cost: 1 },
  { operation: "list_market_top_movers", scope: "markets", method: "GET", path: "/v1/markets/top-movers", cost: 1 },
  { operation: "get_market_snapshot", scope: "markets", method: "GET", path: "/v1/markets/snapshot", cost: 1 },
  { operation: "list_stock_rankings", scope: "stocks", method: "GET", path: "/v1/stocks/rankings", cost: 1 },
  { operation: "list_fund_rankings", scope: "funds", method: "GET", path: "/v1/funds/rankings", cost: 1 },
  { operation: "list_trending_entities", scope: "discovery", method: "GET", path: "/v1/discover/trending", cost: 1 },
  { operation: "get_news", scope: "news", method: "GET", path: "/v1/news/story:11111111-1111-4111-8111-111111111111", cost: 1 },
  { operation: "get_x_account", scope: "x_accounts", method: "GET", path: "/v1/x-accounts/xa_wqzvo7hriklvfiutr25qfkq6hf", cost: 1 },
  { operation: "get_event", scope: "events", method: "GET", path: "/v1/events/berlin-node-day", cost: 1 },
  { operation: "get_token", scope: "tokens", method: "GET", path: "/v1/tokens/tok_aur", cost: 1 },
  { operation: "get_token_unlocks", scope: "tokens", method: "GET", path: "/v1/tokens/tok_aur/unlocks", cost: 1 },
  { operation: "list_narratives", scope: "narratives", method: "GET", path: "/v1/narratives", cost: 1 },
  { operation: "get_narrative", scope: "narratives", method: "GET", path: "/v1/narratives/restaking", cost: 1 },
  { operation: "get_fund", scope: "funds", method: "GET", path: "/v1/funds/atlas-ventures", cost: 1 },
  { operation: "get_stock_news", scope: "stocks", method: "GET", path: "/v1/stocks/kumo-exchange/news", cost: 1 },
];

/** Decision 8's scope names, in its order, and decision 31's. */
export const allScopes: readonly Scope[] = [
  "search", "discovery", "projects", "funds", "people", "tokens", "markets", "stocks", "news", "events", "x_accounts", "narratives",
];

/**
 * An operation's call as the clients take it (`call(operationId, params)`): its path parameters,
 * query parameters and body fields in one object.
 */
export function callParams(operation: string): Record<string, unknown> {
  const route = routes.find((candidate) => candidate.operation === operation);
  const call = operationCalls.find((candidate) => candidate.operation === operation);
  if (route === undefined || call === undefined) throw new Error(`no route or operation call for ${operation}`);
  const url = new URL(call.path, "http://localhost");
  const names = [...route.path.matchAll(/:([a-z_]+)/g)].map((match) => match[1]!);
  const values = new RegExp(`^${route.path.replace(/:[a-z_]+/g, "([^/]+)")}$`).exec(url.pathname)!.slice(1).map(decodeURIComponent);
  return { ...Object.fromEntries(names.map((name, i) => [name, values[i]])), ...Object.fromEntries(url.searchParams), ...(call.body as object | undefined) };
}
