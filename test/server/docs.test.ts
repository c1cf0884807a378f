// Keeps docs/api.md true: its generated examples parse with the strict response schemas, every
// operation of routes.ts has one, and its published tables (operations, scopes, costs, tier limits,
// freshness bounds) equal the numbers in server/policy.ts and snapshot/freshness.ts that the server
// enforces.
import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { codeToStatus, errorCodes } from "../../server/errors.ts";
import { NEWS_ID_PATTERN } from "../../server/operations/get-news.ts";
import { operationIds, operationPolicy, RATE_WINDOW_MS, tierRateLimits, tiers, type OperationId } from "../../server/policy.ts";
import { freshnessBounds } from "../../snapshot/freshness.ts";
import { routes } from "../../server/routes.ts";
import { PERSON_INVESTMENTS_DEFAULT_LIMIT } from "../../server/operations/get-person-investments.ts";
import { PERSON_ROLES_DEFAULT_LIMIT } from "../../server/operations/get-person-roles.ts";
import { PROJECT_EVENTS_DEFAULT_LIMIT } from "../../server/operations/get-project-events.ts";
import { PROJECT_FEATURES_DEFAULT_LIMIT } from "../../server/operations/get-project-features.ts";
import { FUND_RANKINGS_DEFAULT_LIMIT } from "../../server/operations/list-fund-rankings.ts";
import { TOP_MOVERS_DEFAULT_LIMIT } from "../../server/operations/list-market-top-movers.ts";
import { STOCK_RANKINGS_DEFAULT_LIMIT } from "../../server/operations/list-stock-rankings.ts";
import { TRENDING_ENTITIES_DEFAULT_LIMIT } from "../../server/operations/list-trending-entities.ts";
import { TRENDING_PROJECTS_DEFAULT_LIMIT } from "../../server/operations/list-trending-projects.ts";
import { SEARCH_DEFAULT_LIMIT } from "../../server/operations/search-entities.ts";
import { PEOPLE_SEARCH_DEFAULT_LIMIT } from "../../server/operations/search-people.ts";
import { TOKEN_UNLOCKS_DEFAULT_LIMIT } from "../../server/operations/get-token-unlocks.ts";
import { NARRATIVES_DEFAULT_LIMIT } from "../../server/operations/list-narratives.ts";
import { NARRATIVE_DEFAULT_LIMIT } from "../../server/operations/get-narrative.ts";
import { FUND_DEFAULT_LIMIT } from "../../server/operations/get-fund.ts";
import { STOCK_NEWS_DEFAULT_LIMIT } from "../../server/operations/get-stock-news.ts";

const markdown = readFileSync(new URL("../../docs/api.md", import.meta.url), "utf8");

interface Example { name: string; curl: string; http: string | undefined; json: string }

function examples(): Example[] {
  const found: Example[] = [];
  for (const match of markdown.matchAll(/<!-- example:([a-z0-9_-]+) -->\n([\s\S]*?)<!-- \/example -->/g)) {
    const [, name, body] = match as unknown as [string, string, string];
    const block = (lang: string) => new RegExp("```" + lang + "\\n([\\s\\S]*?)\\n```").exec(body)?.[1];
    found.push({ name, curl: block("sh") ?? "", http: block("http"), json: block("json") ?? "" });
  }
  return found;
}

/** The rows of the first table after `heading`, as cells (header and separator dropped). */
function tableAfter(heading: string): string[][] {
  const start = markdown.indexOf(heading);
  expect(start, `docs/api.md has "${heading}"`).toBeGreaterThanOrEqual(0);
  const lines = markdown.slice(start).split("\n");
  const first = lines.findIndex((line) => line.startsWith("|"));
  const rows: string[][] = [];
  for (const line of lines.slice(first + 2)) {
    if (!line.startsWith("|")) break;
    rows.push(line.slice(1, -1).split("|").map((cell) => cell.trim()));
  }
  return rows;
}

const unquote = (cell: string) => cell.replaceAll("`", "");
const docPath = (path: string) => path.replace(/:([a-z]+)/g, "{$1}");

const rateLimit = z.strictObject({
  limit: z.number().int().min(0),
  remaining: z.number().int().min(0),
  reset_at: z.iso.datetime({ precision: 3 }),
  tier: z.enum(tiers),
});
const meta = z.strictObject({
  request_id: z.string().regex(/^[A-Za-z0-9_.:-]{8,96}$/),
  credits_used: z.number().int().min(0),
  credits_remaining: z.number().int().min(0).optional(),
  rate_limit: rateLimit.optional(),
});
const errorBody = z.strictObject({
  error: z.strictObject({
    code: z.enum(errorCodes),
    message: z.string().min(1),
    details: z.array(z.strictObject({ path: z.string(), message: z.string(), code: z.string() })).min(1).optional(),
  }),
  meta: meta.extend({ credits_used: z.literal(0) }),
});

describe("docs/api.md examples", () => {
  const all = examples();

  it("has exactly one example per operation of routes.ts and one per error status", () => {
    const names = all.map((example) => example.name);
    expect(new Set(names).size).toBe(names.length);
    const operations = names.filter((name) => !name.startsWith("error-")).sort();
    expect(operations).toEqual(routes.map((route) => route.operation).sort());
    expect(operations).toEqual([...operationIds].sort());
    const errors = names.filter((name) => name.startsWith("error-")).sort();
    expect(errors).toEqual(["error-401", "error-402", "error-403", "error-404", "error-422", "error-429", "error-500"]);
  });

  it("every json block of the page is well-formed JSON", () => {
    const blocks = [...markdown.matchAll(/```json\n([\s\S]*?)\n```/g)].map((match) => match[1]!);
    expect(blocks.length).toBeGreaterThanOrEqual(all.length);
    for (const block of blocks) expect(() => JSON.parse(block), block.slice(0, 80)).not.toThrow();
  });

  for (const route of routes) {
    it(`${route.operation}: a ${route.method} ${docPath(route.path)} example whose data parses with the strict response schema`, () => {
      const example = all.find((candidate) => candidate.name === route.operation);
      expect(example, `example:${route.operation}`).toBeDefined();
      const pathPattern = route.path.replace(/:[a-z]+/g, "[^/?\"]+");
      const curl = new RegExp(`^curl -s${route.method === "POST" ? " -X POST" : ""} "http://127\\.0\\.0\\.1:8787${pathPattern}(\\?[^"]*)?"`, "m");
      expect(example!.curl).toMatch(curl);
      expect(example!.curl).toContain("Authorization: Bearer $CEI_KEY");

      const body = JSON.parse(example!.json) as Record<string, unknown>;
      expect(Object.keys(body).sort()).toEqual(["data", "meta"]);
      const parsed = route.handler.response.safeParse(body.data);
      expect(parsed.success, parsed.success ? "" : JSON.stringify(parsed.error.issues)).toBe(true);
      const parsedMeta = meta.parse(body.meta);
      expect(parsedMeta.credits_used).toBe(operationPolicy[route.operation].cost);
      expect(parsedMeta.rate_limit).toBeDefined();
      expect(parsedMeta.credits_remaining).toBeDefined();
    });
  }

  it("every error example is exactly {error: {code, message, details?}, meta}, with the code's status and no charge", () => {
    for (const example of all.filter((candidate) => candidate.name.startsWith("error-"))) {
      const status = Number(example.name.slice("error-".length));
      const parsed = errorBody.safeParse(JSON.parse(example.json));
      expect(parsed.success, `${example.name}: ${parsed.success ? "" : JSON.stringify(parsed.error.issues)}`).toBe(true);
      const { error, meta: errorMeta } = parsed.data!;
      expect(codeToStatus[error.code], example.name).toBe(status);
      expect(error.details !== undefined, example.name).toBe(error.code === "INVALID_REQUEST");
      // The key is unknown only on 401: no balance or window is reported then.
      expect(errorMeta.rate_limit === undefined, example.name).toBe(status === 401);
      expect(example.curl.includes("Authorization: Bearer"), example.name).toBe(status !== 401);
    }
  });

  it("shows the rate-limit headers in their documented format, and Retry-After on the 429", () => {
    const withHeaders = all.filter((example) => example.http !== undefined);
    expect(withHeaders.map((example) => example.name).sort()).toEqual(["error-429", "get_project"]);
    for (const example of withHeaders) {
      const [statusLine, ...lines] = example.http!.split("\n");
      const headers = new Map(lines.map((line) => [line.slice(0, line.indexOf(":")), line.slice(line.indexOf(":") + 2)]));
      const body = JSON.parse(example.json) as { meta: z.output<typeof meta> };
      const rate = body.meta.rate_limit!;
      expect(statusLine).toBe(example.name === "error-429" ? "HTTP/1.1 429 Too Many Requests" : "HTTP/1.1 200 OK");
      expect(headers.get("cache-control")).toBe("no-store");
      expect(headers.get("x-service-request-id")).toBe(body.meta.request_id);
      expect(headers.get("x-service-credits-used")).toBe(String(body.meta.credits_used));
      expect(headers.get("x-service-rate-limit")).toBe(`limit=${rate.limit};remaining=${rate.remaining};reset_at=${rate.reset_at};tier=${rate.tier}`);
      expect(headers.get("ratelimit-policy")).toBe(`"default";q=${rate.limit};w=${RATE_WINDOW_MS / 1000}`);
      expect(headers.get("ratelimit")).toMatch(new RegExp(`^"default";r=${rate.remaining};t=\\d+$`));
      if (example.name === "error-429") {
        expect(rate.remaining).toBe(0);
        expect(Number(headers.get("retry-after"))).toBeGreaterThan(0);
        expect(headers.get("retry-after")).toMatch(/^\d{1,10}$/);
      } else {
        expect(headers.has("retry-after")).toBe(false);
      }
    }
  });
});

describe("docs/api.md tables equal server/policy.ts", () => {
  const defaultLimits: Partial<Record<OperationId, number>> = {
    search_entities: SEARCH_DEFAULT_LIMIT,
    search_people: PEOPLE_SEARCH_DEFAULT_LIMIT,
    get_person_investments: PERSON_INVESTMENTS_DEFAULT_LIMIT,
    get_person_roles: PERSON_ROLES_DEFAULT_LIMIT,
    get_project_features: PROJECT_FEATURES_DEFAULT_LIMIT,
    get_project_events: PROJECT_EVENTS_DEFAULT_LIMIT,
    list_trending_projects: TRENDING_PROJECTS_DEFAULT_LIMIT,
    list_market_top_movers: TOP_MOVERS_DEFAULT_LIMIT,
    list_stock_rankings: STOCK_RANKINGS_DEFAULT_LIMIT,
    list_fund_rankings: FUND_RANKINGS_DEFAULT_LIMIT,
    list_trending_entities: TRENDING_ENTITIES_DEFAULT_LIMIT,
    get_token_unlocks: TOKEN_UNLOCKS_DEFAULT_LIMIT,
    list_narratives: NARRATIVES_DEFAULT_LIMIT,
    get_narrative: NARRATIVE_DEFAULT_LIMIT,
    get_fund: FUND_DEFAULT_LIMIT,
    get_stock_news: STOCK_NEWS_DEFAULT_LIMIT,
  };

  /** Does the operation's request schema accept `limit` = n? (GET: query string; POST: JSON body.) */
  function acceptsLimit(route: (typeof routes)[number], n: number): boolean {
    if (route.method === "POST") return route.handler.request.safeParse({ params: {}, query: {}, body: { q: "ab", limit: n } }).success;
    const params = Object.fromEntries([...route.path.matchAll(/:([a-z]+)/g)].map(([, name]) => [name, "x"]));
    // People search's `query` is required; every other query parameter is optional.
    const required = route.operation === "search_people" ? { query: "ab" } : {};
    return route.handler.request.safeParse({ params, query: { ...required, limit: String(n) } }).success;
  }

  it("the operations table lists every route in order with its method, path, scope, credit cost and limits", () => {
    const rows = tableAfter("## Operations");
    expect(rows.map((row) => Number(row[0]))).toEqual(routes.map((_, i) => i + 1));
    routes.forEach((route, i) => {
      const [, methodPath, scope, credits, limits] = rows[i]!;
      expect(unquote(methodPath!), route.operation).toBe(`${route.method} ${docPath(route.path)}`);
      expect(scope, route.operation).toBe(operationPolicy[route.operation].scope ?? "—");
      expect(Number(credits), route.operation).toBe(operationPolicy[route.operation].cost);
      const limit = /^(\d+) \(1-(\d+)\)$/.exec(limits!);
      const expectedDefault = defaultLimits[route.operation];
      if (expectedDefault === undefined) {
        expect(limits, route.operation).toBe("—");
        expect(acceptsLimit(route, 1), `${route.operation} takes no limit`).toBe(false);
      } else {
        expect(limit, `${route.operation}: "${limits}"`).not.toBeNull();
        expect(Number(limit![1]), route.operation).toBe(expectedDefault);
        const max = Number(limit![2]);
        expect(acceptsLimit(route, max), `${route.operation} accepts limit ${max}`).toBe(true);
        expect(acceptsLimit(route, max + 1), `${route.operation} rejects limit ${max + 1}`).toBe(false);
        expect(acceptsLimit(route, 0), `${route.operation} rejects limit 0`).toBe(false);
      }
    });
  });

  it("the scopes table gives every operation its scope", () => {
    const rows = tableAfter("### Scopes");
    const scopeOf = new Map<number, string>();
    for (const [scope, operations] of rows) {
      for (const [number] of operations!.matchAll(/\b\d+\b/g)) scopeOf.set(Number(number), unquote(scope!));
    }
    routes.forEach((route, i) => expect(scopeOf.get(i + 1) ?? null, route.operation).toBe(operationPolicy[route.operation].scope));
  });

  it("the tier table gives every tier its requests per window, and the window is the enforced one", () => {
    const rows = tableAfter("### Credits and rate limits");
    expect(Object.fromEntries(rows.map(([tier, limit]) => [unquote(tier!), Number(limit!.replaceAll(",", ""))]))).toEqual(tierRateLimits);
    expect(markdown).toContain(`requests per ${RATE_WINDOW_MS / 1000}-second window`);
  });

  it("the freshness table gives the enforced bounds", () => {
    const rows = tableAfter("## Freshness");
    const order: (keyof typeof freshnessBounds)[] = [
      "trending_live", "trending_projects", "narrative_rankings", "market", "fund_rankings", "project_tvl", "tokenomics",
    ];
    expect(rows).toHaveLength(order.length);
    order.forEach((bound, i) => {
      const [, amount, unit] = /^(\d+) (hours|days)$/.exec(rows[i]![1]!) ?? [];
      expect(amount, `${bound}: "${rows[i]![1]}"`).toBeDefined();
      expect(Number(amount) * (unit === "hours" ? 3_600_000 : 86_400_000), bound).toBe(freshnessBounds[bound]);
      // Operations that list NOT_FOUND answer stale data with 404, the others with 500 (decision 14).
      expect(rows[i]![2], bound).toBe(bound === "project_tvl" || bound === "tokenomics" ? "`404 NOT_FOUND`" : "`500 INTERNAL_ERROR`");
    });
  });

  it("the errors table gives every code its HTTP status", () => {
    const rows = tableAfter("## Errors");
    expect(Object.fromEntries(rows.map(([code, status]) => [unquote(code!), Number(status)]))).toEqual(codeToStatus);
  });

  it("states the news id pattern the server enforces", () => {
    expect(markdown).toContain(NEWS_ID_PATTERN.source);
  });
});

describe("consumer docs", () => {
  it("docs/api.md names no source file and no test: a consumer sees neither", () => {
    expect(markdown.match(/[\w./-]+\.(?:ts|mjs|js)\b/g) ?? []).toEqual([]);
    expect(markdown).not.toMatch(/\b(?:server|compiler|test|cli)\//);
  });

  it("docs/errors.md has one entry per error code, with its HTTP status, and api.md links it", () => {
    const errorsMd = readFileSync(new URL("../../docs/errors.md", import.meta.url), "utf8");
    const entries = [...errorsMd.matchAll(/^## `([A-Z_]+)` — (\d{3})$/gm)].map(([, code, status]) => [code, Number(status)]);
    expect(Object.fromEntries(entries)).toEqual(codeToStatus);
    expect(entries).toHaveLength(errorCodes.length);
    expect(markdown).toContain("(errors.md)");
  });
});
