// The mixed HTTP workload: every released operation, with paths and parameters drawn from the
// snapshot being served (records spread over each table), plus ids that do not exist, so that
// both the success and the not-found paths run. autocannon cycles through the list, so each
// request is sent equally often.
import Database from "better-sqlite3";
import type { OperationId } from "../server/policy.ts";
import type { LoadRequest } from "./_load.ts";

export interface WorkloadRequest extends LoadRequest {
  operation: OperationId;
}

/** Records drawn per detail operation, and how many made-up ids are added to them. */
const DRAWN = 6;
const MISSING = 1;

export function buildWorkload(snapshotFile: string, key: string): WorkloadRequest[] {
  const db = new Database(snapshotFile, { readonly: true, fileMustExist: true });
  try {
    return _requests(db).map((r) => ({
      ...r,
      headers: { authorization: `Bearer ${key}`, ...(r.method === "POST" ? { "content-type": "application/json" } : {}) },
    }));
  } finally {
    db.close();
  }
}

function _requests(db: Database.Database): WorkloadRequest[] {
  const spread = (sql: string, n = DRAWN) => _spread(db, sql, n);
  const get = (operation: OperationId, path: string): WorkloadRequest => ({ operation, method: "GET", path });
  const detail = (operation: OperationId, values: string[], missing: string, path: (value: string) => string) =>
    [...values, ...Array.from({ length: MISSING }, (_, i) => `${missing}${i}`)].map((value) => get(operation, path(encodeURIComponent(value))));

  const projects = spread("SELECT slug FROM projects ORDER BY id");
  const people = spread("SELECT slug FROM people WHERE is_search_candidate = 1 ORDER BY id");
  const names = spread("SELECT name FROM projects ORDER BY id", 3);
  const symbols = spread("SELECT symbol FROM tokens ORDER BY id", 3);
  const fullNames = spread("SELECT full_name FROM people WHERE is_search_candidate = 1 ORDER BY id", 3);
  const days = spread("SELECT day FROM trending_days WHERE day <> 'live' ORDER BY day", 2);
  const unlockTokens = spread("SELECT DISTINCT token_id FROM token_unlock_plans ORDER BY token_id");
  const search = (q: string, types?: string[]): WorkloadRequest => ({
    operation: "search_entities", method: "POST", path: "/v1/search", body: JSON.stringify(types === undefined ? { q } : { q, types }),
  });

  return [
    ...names.map((name) => search(name)),
    ...symbols.map((symbol) => search(symbol, ["token"])),
    search(names[0]!.slice(0, 4)),
    search("zzqx-no-such-name"),
    ...fullNames.map((name) => get("search_people", `/v1/people/search?query=${encodeURIComponent(name)}`)),
    get("search_people", `/v1/people/search?query=${encodeURIComponent(fullNames[0]!.slice(0, 3))}&limit=20`),
    ...detail("get_person_investments", people, "no-such-person-", (slug) => `/v1/people/${slug}/investments`),
    ...detail("get_person_roles", people, "no-such-person-", (slug) => `/v1/people/${slug}/roles`),
    ...detail("get_project", projects, "no-such-project-", (slug) => `/v1/projects/${slug}`),
    ...detail("get_project_features", projects, "no-such-project-", (slug) => `/v1/projects/${slug}/features`),
    ...detail("get_project_events", projects, "no-such-project-", (slug) => `/v1/projects/${slug}/events`),
    ...detail("get_project_funding", projects, "no-such-project-", (slug) => `/v1/projects/${slug}/funding`),
    ...detail("get_project_market", projects, "no-such-project-", (slug) => `/v1/projects/${slug}/market`),
    ...detail("get_tokenomics", spread("SELECT token_id FROM tokenomics ORDER BY token_id"), "tok_missing_", (id) => `/v1/tokenomics/${id}`),
    ...detail("get_news", spread("SELECT id FROM news ORDER BY id"), "story:00000000-0000-4000-8000-00000000000", (id) => `/v1/news/${id}`),
    ...detail("get_x_account", spread("SELECT id FROM x_accounts ORDER BY id"), "xa_nosuchaccount", (id) => `/v1/x-accounts/${id}`),
    ...detail("get_event", spread("SELECT slug FROM events ORDER BY id"), "no-such-event-", (slug) => `/v1/events/${slug}`),
    ...detail("get_token", spread("SELECT id FROM tokens ORDER BY id"), "tok_missing_", (id) => `/v1/tokens/${id}`),
    ...detail("get_token_unlocks", unlockTokens, "tok_missing_", (id) => `/v1/tokens/${id}/unlocks`),
    ...unlockTokens.slice(0, 2).map((id) => get("get_token_unlocks", `/v1/tokens/${encodeURIComponent(id)}/unlocks?days=365&limit=5`)),
    ...detail("get_narrative", spread("SELECT slug FROM narratives ORDER BY id"), "no-such-narrative-", (slug) => `/v1/narratives/${slug}`),
    ...detail("get_fund", spread("SELECT slug FROM funds ORDER BY id"), "no-such-fund-", (slug) => `/v1/funds/${slug}`),
    ...detail("get_stock_news", spread("SELECT slug FROM stocks ORDER BY id"), "no-such-stock-", (slug) => `/v1/stocks/${slug}/news`),
    get("list_narratives", "/v1/narratives"),
    get("list_narratives", "/v1/narratives?limit=10"),
    get("list_market_top_movers", "/v1/markets/top-movers"),
    get("list_market_top_movers", "/v1/markets/top-movers?period=7d&limit=5"),
    get("get_market_snapshot", "/v1/markets/snapshot"),
    get("list_stock_rankings", "/v1/stocks/rankings"),
    get("list_stock_rankings", "/v1/stocks/rankings?region=us&limit=10"),
    get("list_fund_rankings", "/v1/funds/rankings"),
    get("list_fund_rankings", "/v1/funds/rankings?fund_type=vc&limit=10"),
    get("list_trending_entities", "/v1/discover/trending"),
    get("list_trending_entities", "/v1/discover/trending?entity_type=token"),
    ...days.map((day) => get("list_trending_entities", `/v1/discover/trending?date=${day}`)),
  ];
}

/** `n` values spread evenly over the query's rows (first, last and between). */
function _spread(db: Database.Database, sql: string, n: number): string[] {
  const count = db.prepare<[], number>(`SELECT count(*) FROM (${sql})`).pluck().get() ?? 0;
  if (count === 0) throw new Error(`the snapshot has no rows for: ${sql}`);
  const pick = db.prepare<[number], string>(`${sql} LIMIT 1 OFFSET ?`).pluck();
  const offsets = [...new Set(Array.from({ length: n }, (_, i) => Math.floor((i * (count - 1)) / Math.max(1, n - 1))))];
  return offsets.map((offset) => pick.get(offset)!);
}

export interface WorkloadProbe {
  meanBodyBytes: number;
  /** Status codes seen per operation, e.g. { get_project: { "200": 6, "404": 1 } }. */
  statusesByOperation: Record<string, Record<string, number>>;
}

/**
 * Sends each request once and measures the mean body size (each request is sent equally often
 * under load, so this is the workload's mean). Anything but 200 or 404 is a broken workload.
 */
export async function probeWorkload(baseUrl: string, workload: readonly WorkloadRequest[]): Promise<WorkloadProbe> {
  let bytes = 0;
  const statusesByOperation: Record<string, Record<string, number>> = {};
  for (const request of workload) {
    const response = await fetch(baseUrl + request.path, { method: request.method, headers: request.headers, body: request.body });
    const body = Buffer.from(await response.arrayBuffer());
    if (response.status !== 200 && response.status !== 404) {
      throw new Error(`workload request ${request.method} ${request.path} answered ${response.status}: ${body.toString("utf8").slice(0, 500)}`);
    }
    bytes += body.length;
    const seen = (statusesByOperation[request.operation] ??= {});
    seen[response.status] = (seen[response.status] ?? 0) + 1;
  }
  return { meanBodyBytes: bytes / workload.length, statusesByOperation };
}
