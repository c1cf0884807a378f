// Every operation of the API, one line each. Scope and credit cost are looked up in policy.ts.
import type { Operation } from "./operations/operation.ts";
import type { OperationId } from "./policy.ts";
import { searchEntities } from "./operations/search-entities.ts";
import { searchPeople } from "./operations/search-people.ts";
import { getPersonInvestments } from "./operations/get-person-investments.ts";
import { getPersonRoles } from "./operations/get-person-roles.ts";
import { getProject } from "./operations/get-project.ts";
import { getProjectFeatures } from "./operations/get-project-features.ts";
import { getProjectEvents } from "./operations/get-project-events.ts";
import { getProjectFunding } from "./operations/get-project-funding.ts";
import { getProjectMarket } from "./operations/get-project-market.ts";
import { listTrendingProjects } from "./operations/list-trending-projects.ts";
import { getTokenomics } from "./operations/get-tokenomics.ts";
import { listMarketTopMovers } from "./operations/list-market-top-movers.ts";
import { getMarketSnapshot } from "./operations/get-market-snapshot.ts";
import { listStockRankings } from "./operations/list-stock-rankings.ts";
import { listFundRankings } from "./operations/list-fund-rankings.ts";
import { listTrendingEntities } from "./operations/list-trending-entities.ts";
import { getNews } from "./operations/get-news.ts";
import { getXAccount } from "./operations/get-x-account.ts";
import { getEvent } from "./operations/get-event.ts";
import { getToken } from "./operations/get-token.ts";
import { getTokenUnlocks } from "./operations/get-token-unlocks.ts";
import { listNarratives } from "./operations/list-narratives.ts";
import { getNarrative } from "./operations/get-narrative.ts";
import { getFund } from "./operations/get-fund.ts";
import { getStockNews } from "./operations/get-stock-news.ts";
import { getKeyInfo } from "./operations/get-key.ts";

export interface Route {
  operation: OperationId;
  method: "GET" | "POST";
  /** h3 route syntax; `:name` segments are path parameters. */
  path: string;
  handler: Operation;
  /**
   * Registered only when this release flag is on; otherwise the path is served by the route it
   * would otherwise match (`/v1/projects/:slug` with slug "trending", a slug the compiler refuses),
   * so its answers are those of any unknown project in every key state (decision 5).
   */
  release?: "trending_projects";
}

export const routes: readonly Route[] = [
  { operation: "search_entities", method: "POST", path: "/v1/search", handler: searchEntities },
  { operation: "search_people", method: "GET", path: "/v1/people/search", handler: searchPeople },
  { operation: "get_person_investments", method: "GET", path: "/v1/people/:slug/investments", handler: getPersonInvestments },
  { operation: "get_person_roles", method: "GET", path: "/v1/people/:slug/roles", handler: getPersonRoles },
  { operation: "get_project", method: "GET", path: "/v1/projects/:slug", handler: getProject },
  { operation: "get_project_features", method: "GET", path: "/v1/projects/:slug/features", handler: getProjectFeatures },
  { operation: "get_project_events", method: "GET", path: "/v1/projects/:slug/events", handler: getProjectEvents },
  { operation: "get_project_funding", method: "GET", path: "/v1/projects/:slug/funding", handler: getProjectFunding },
  { operation: "get_project_market", method: "GET", path: "/v1/projects/:slug/market", handler: getProjectMarket },
  { operation: "list_trending_projects", method: "GET", path: "/v1/projects/trending", handler: listTrendingProjects, release: "trending_projects" },
  { operation: "get_tokenomics", method: "GET", path: "/v1/tokenomics/:id", handler: getTokenomics },
  { operation: "list_market_top_movers", method: "GET", path: "/v1/markets/top-movers", handler: listMarketTopMovers },
  { operation: "get_market_snapshot", method: "GET", path: "/v1/markets/snapshot", handler: getMarketSnapshot },
  { operation: "list_stock_rankings", method: "GET", path: "/v1/stocks/rankings", handler: listStockRankings },
  { operation: "list_fund_rankings", method: "GET", path: "/v1/funds/rankings", handler: listFundRankings },
  { operation: "list_trending_entities", method: "GET", path: "/v1/discover/trending", handler: listTrendingEntities },
  { operation: "get_news", method: "GET", path: "/v1/news/:id", handler: getNews },
  { operation: "get_x_account", method: "GET", path: "/v1/x-accounts/:id", handler: getXAccount },
  { operation: "get_event", method: "GET", path: "/v1/events/:slug", handler: getEvent },
  { operation: "get_token", method: "GET", path: "/v1/tokens/:id", handler: getToken },
  { operation: "get_token_unlocks", method: "GET", path: "/v1/tokens/:id/unlocks", handler: getTokenUnlocks },
  { operation: "list_narratives", method: "GET", path: "/v1/narratives", handler: listNarratives },
  { operation: "get_narrative", method: "GET", path: "/v1/narratives/:slug", handler: getNarrative },
  // `/v1/funds/rankings` is the static route beside it: the compiler refuses a fund of that slug.
  { operation: "get_fund", method: "GET", path: "/v1/funds/:slug", handler: getFund },
  { operation: "get_stock_news", method: "GET", path: "/v1/stocks/:slug/news", handler: getStockNews },
  { operation: "get_key", method: "GET", path: "/v1/key", handler: getKeyInfo },
];
