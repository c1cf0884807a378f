// Regenerates the example blocks of docs/api.md from a real server: the bundled sample written at
// a fixed as-of, compiled with a fixed X secret, served in-process with a fixed clock. Every block
// between `<!-- example:NAME -->` and `<!-- /example -->` is rewritten in place; nothing else in
// the file changes. Run with `npx tsx docs/api-examples.ts`. Re-running gives the same file: request
// ids (random on a real server) are replaced by numbered placeholders of the same format.
// `cei openapi` uses the same examples (collectExamples) in docs/openapi.json.
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import type Database from "better-sqlite3";
import type { H3 } from "h3";
import { compileSnapshot } from "../compiler/compile.ts";
import { writeSample } from "../data/sample.ts";
import { createApp } from "../server/app.ts";
import { openMeterDatabase } from "../server/meter/sqlite/database.ts";
import { createKey } from "../server/meter/sqlite/keys.ts";
import { SqliteMeter } from "../server/meter/sqlite/meter.ts";
import { tierRateLimits, type OperationId, type Scope, type Tier } from "../server/policy.ts";
import { Serving } from "../server/serving.ts";
import { openSnapshot } from "../snapshot/open.ts";

export const EXAMPLES_AS_OF = new Date("2026-11-21T12:00:00.000Z");
/** The server's clock while the examples run: five minutes after the as-of. */
export const EXAMPLES_NOW = EXAMPLES_AS_OF.getTime() + 5 * 60_000;
const X_SECRET = "docs-example-x-secret";
const BASE_URL = "http://127.0.0.1:8787";
const API_MD = fileURLToPath(new URL("./api.md", import.meta.url));

export interface Example {
  name: string;
  /** Shell lines shown before the response. */
  curl: string;
  status: number;
  /** Shown only where the headers are the point of the example. */
  headers?: Headers;
  body: unknown;
}

function row<T>(db: Database.Database, sql: string): T {
  const value = db.prepare(sql).get() as T | undefined;
  if (value === undefined) throw new Error(`the sample has no row for: ${sql}`);
  return value;
}

/** Real identifiers from the compiled snapshot, chosen so that the examples stay short. */
function pickIds(db: Database.Database) {
  const project = row<{ slug: string; name: string }>(db, `
    SELECT p.slug, p.name FROM projects p JOIN project_tvl t ON t.project_id = p.id
    WHERE p.feature_count >= 2 AND p.event_count >= 2 AND p.round_count BETWEEN 1 AND 3
    ORDER BY p.round_count, p.id LIMIT 1`);
  const person = row<{ slug: string; full_name: string }>(db, `
    SELECT slug, full_name FROM people WHERE investment_count >= 2 AND role_count >= 2 AND is_search_candidate = 1
    ORDER BY id LIMIT 1`);
  const token = row<{ id: string }>(db, `
    SELECT t.token_id AS id FROM tokenomics t
    WHERE t.model_type IS NOT NULL
      AND EXISTS (SELECT 1 FROM tokenomics_allocations a WHERE a.token_id = t.token_id)
      AND EXISTS (SELECT 1 FROM tokenomics_vesting v WHERE v.token_id = t.token_id)
      AND EXISTS (SELECT 1 FROM tokenomics_utilities u WHERE u.token_id = t.token_id)
    ORDER BY (SELECT count(*) FROM tokenomics_allocations a WHERE a.token_id = t.token_id)
           + (SELECT count(*) FROM tokenomics_vesting v WHERE v.token_id = t.token_id), t.token_id LIMIT 1`);
  const news = row<{ id: string }>(db, `
    SELECT n.id FROM news n WHERE (SELECT count(*) FROM news_entities e WHERE e.news_id = n.id) BETWEEN 2 AND 3
    ORDER BY n.id LIMIT 1`);
  const xAccount = row<{ id: string }>(db, "SELECT id FROM x_accounts WHERE linked_type IS NOT NULL ORDER BY id LIMIT 1");
  const today = new Date(EXAMPLES_NOW).toISOString().slice(0, 10);
  const event = row<{ slug: string }>(db, `
    SELECT slug FROM events ORDER BY (start_date <= '${today}' AND end_date >= '${today}') DESC, start_date, id LIMIT 1`);
  // A token in the market universe with a project; one whose vesting unlocks within the example's 90 days.
  const marketToken = row<{ id: string }>(db, `
    SELECT t.id FROM tokens t JOIN market_assets m ON m.token_id = t.id WHERE t.project_id IS NOT NULL ORDER BY m.position LIMIT 1`);
  const unlockToken = row<{ id: string }>(db, `
    SELECT token_id AS id FROM token_unlock_plans GROUP BY token_id
    HAVING count(*) >= 2 AND max(cadence = 'monthly') = 1 AND max(end_ms) > ${EXAMPLES_NOW} + 90 * 86400000
    ORDER BY token_id LIMIT 1`);
  const narrative = row<{ slug: string }>(db, `
    SELECT n.slug FROM narratives n WHERE n.project_count BETWEEN 3 AND 6
      AND (SELECT count(*) FROM narrative_timeline t WHERE t.narrative_id = n.id) BETWEEN 2 AND 4
    ORDER BY n.id LIMIT 1`);
  const fund = row<{ slug: string }>(db, `
    SELECT slug FROM funds WHERE portfolio_count BETWEEN 2 AND 6 AND partner_count BETWEEN 1 AND 3 ORDER BY id LIMIT 1`);
  const stock = row<{ slug: string }>(db, "SELECT slug FROM stocks WHERE story_count > 0 ORDER BY story_count DESC, id LIMIT 1");
  return { project, person, token, news, xAccount, event, marketToken, unlockToken, narrative, fund, stock };
}

// ---- formatting ----

function inline(value: unknown): string {
  if (Array.isArray(value)) return value.length === 0 ? "[]" : `[${value.map(inline).join(", ")}]`;
  if (value !== null && typeof value === "object") {
    const entries = Object.entries(value);
    return entries.length === 0 ? "{}" : `{ ${entries.map(([k, v]) => `${JSON.stringify(k)}: ${inline(v)}`).join(", ")} }`;
  }
  return JSON.stringify(value);
}

/** Indented JSON that keeps any value fitting on one line (at most 120 columns) on that line. */
function pretty(value: unknown, indent = "", prefix = ""): string {
  const flat = inline(value);
  if (value === null || typeof value !== "object" || indent.length + prefix.length + flat.length <= 120) return flat;
  const inner = indent + "  ";
  if (Array.isArray(value)) {
    return `[\n${value.map((item) => inner + pretty(item, inner)).join(",\n")}\n${indent}]`;
  }
  const lines = Object.entries(value).map(([k, v]) => `${inner}${JSON.stringify(k)}: ${pretty(v, inner, `${JSON.stringify(k)}: `)}`);
  return `{\n${lines.join(",\n")}\n${indent}}`;
}

const statusText: Record<number, string> = {
  200: "OK", 401: "Unauthorized", 402: "Payment Required", 403: "Forbidden", 404: "Not Found",
  422: "Unprocessable Entity", 429: "Too Many Requests", 500: "Internal Server Error",
};

function render(example: Example): string {
  const parts = ["```sh", example.curl, "```"];
  if (example.headers !== undefined) {
    const headerLines = [...example.headers.entries()].map(([name, value]) => `${name}: ${value}`);
    parts.push("```http", `HTTP/1.1 ${example.status} ${statusText[example.status] ?? ""}`.trimEnd(), ...headerLines, "```");
  }
  parts.push("```json", pretty(example.body), "```");
  return parts.join("\n");
}

// ---- running the examples ----

/** The server the examples come from: the sample compiled at EXAMPLES_AS_OF, its clock at EXAMPLES_NOW. */
export interface ExampleService {
  app: H3;
  serving: Serving;
  /** The app's and the meter's clock: move `clock.now` to answer at another time. */
  clock: { now: number };
  newKey(tier: Tier, credits: number, scopes?: Scope[]): string;
  /** Each key id made so far, with the numbered placeholder the examples show for it. */
  keyIds: Map<string, string>;
  ids: ReturnType<typeof pickIds>;
  close(): void;
}

/** Writes and compiles the sample into `work` and serves it in-process, trending projects released (about 2 seconds). */
export async function openExampleService(work: string): Promise<ExampleService> {
  const sourceDir = join(work, "sample");
  await writeSample({ outDir: sourceDir, asOf: EXAMPLES_AS_OF, scale: 1 });
  const snapshotFile = join(work, "snapshot.db");
  const compiled = await compileSnapshot({ sourceDir, outFile: snapshotFile, compiledAt: EXAMPLES_AS_OF, xSecret: X_SECRET });
  if (!compiled.ok) throw new Error(`the sample did not compile:\n${compiled.problems.join("\n")}`);

  const meterFile = join(work, "meter.db");
  const clock = { now: EXAMPLES_NOW };
  const now = () => clock.now;
  const admin = openMeterDatabase(meterFile, { now });
  const meter = SqliteMeter.open(meterFile, { now, synchronous: "NORMAL" });
  const snapshot = openSnapshot(snapshotFile);
  const serving = await Serving.open(snapshotFile, { now, log: () => undefined, xSecret: X_SECRET });
  const app = createApp({ serving, meter, now, releaseTrendingProjects: true, checkResponses: true });
  // Key ids are random too: each is shown as a numbered placeholder of the same format.
  const keyIds = new Map<string, string>();
  const ids = pickIds(snapshot);
  return {
    app, serving, clock, keyIds, ids,
    newKey(tier, credits, scopes) {
      const created = createKey(admin, { tier, credits, scopes }, clock.now);
      keyIds.set(created.id, `key_${String(keyIds.size + 1).padStart(16, "0")}`);
      return created.key;
    },
    close() {
      meter.close();
      admin.close();
      snapshot.close();
      serving.close();
    },
  };
}

/** Every example, from a fresh compile of the sample served in-process (about 2 seconds). */
export async function collectExamples(): Promise<Example[]> {
  const work = mkdtempSync(join(tmpdir(), "cei-docs-examples-"));
  try {
    const service = await openExampleService(work);
    const { app, clock, keyIds, ids } = service;
    const newKey = service.newKey.bind(service);
    const withPlaceholders = (text: string, requestId: string, placeholder: string) => {
      let out = text.replaceAll(requestId, placeholder);
      for (const [id, shown] of keyIds) out = out.replaceAll(id, shown);
      return out;
    };

    const examples: Example[] = [];
    let requestCount = 0;
    const placeholderId = () => `req_00000000-0000-4000-8000-${String(++requestCount).padStart(12, "0")}`;

    interface Call { method?: "GET" | "POST"; path: string; body?: unknown; key?: string | null; showHeaders?: boolean; note?: string }
    const call = async (name: string, { method = "GET", path, body, key, showHeaders = false, note }: Call, expectStatus: number) => {
      const headers: Record<string, string> = key === null ? {} : { authorization: `Bearer ${key}` };
      if (body !== undefined) headers["content-type"] = "application/json";
      const response = await app.request(path, { method, headers, body: body === undefined ? undefined : JSON.stringify(body) });
      const text = await response.text();
      if (response.status !== expectStatus) throw new Error(`${name}: expected ${expectStatus}, got ${response.status}: ${text}`);
      const requestId = response.headers.get("x-service-request-id") ?? "";
      const placeholder = placeholderId();
      const parsed = JSON.parse(withPlaceholders(text, requestId, placeholder)) as unknown;
      const shownHeaders = new Headers();
      for (const [header, value] of response.headers) shownHeaders.set(header, withPlaceholders(value, requestId, placeholder));
      const curlParts = [`curl -s${method === "POST" ? " -X POST" : ""} "${BASE_URL}${path}"`];
      if (key !== null) curlParts.push(`-H "Authorization: Bearer $CEI_KEY"`);
      if (body !== undefined) curlParts.push(`-H "Content-Type: application/json" -d '${JSON.stringify(body)}'`);
      const curl = (note === undefined ? "" : `# ${note}\n`) + curlParts.join(" \\\n  ") + (showHeaders ? " -i" : "");
      examples.push({ name, curl, status: response.status, headers: showHeaders ? shownHeaders : undefined, body: parsed });
    };

    // One representative request per operation, in the order of the reference.
    const key = newKey("pro", 1_000);
    const ok: Array<[OperationId, Call]> = [
      ["search_entities", { method: "POST", path: "/v1/search", body: { q: ids.project.name.split(" ")[0]!.toLowerCase(), limit: 5 } }],
      ["search_people", { path: `/v1/people/search?query=${encodeURIComponent(ids.person.full_name.split(" ")[0]!.toLowerCase())}&limit=5` }],
      ["get_person_investments", { path: `/v1/people/${ids.person.slug}/investments?limit=3` }],
      ["get_person_roles", { path: `/v1/people/${ids.person.slug}/roles?limit=3` }],
      ["get_project", { path: `/v1/projects/${ids.project.slug}`, showHeaders: true }],
      ["get_project_features", { path: `/v1/projects/${ids.project.slug}/features?limit=2` }],
      ["get_project_events", { path: `/v1/projects/${ids.project.slug}/events?limit=3` }],
      ["get_project_funding", { path: `/v1/projects/${ids.project.slug}/funding` }],
      ["get_project_market", { path: `/v1/projects/${ids.project.slug}/market` }],
      ["list_trending_projects", { path: "/v1/projects/trending?limit=3" }],
      ["get_tokenomics", { path: `/v1/tokenomics/${encodeURIComponent(ids.token.id)}` }],
      ["list_market_top_movers", { path: "/v1/markets/top-movers?period=7d&limit=2" }],
      ["get_market_snapshot", { path: "/v1/markets/snapshot" }],
      ["list_stock_rankings", { path: "/v1/stocks/rankings?region=all&limit=3" }],
      ["list_fund_rankings", { path: "/v1/funds/rankings?fund_type=vc&limit=3" }],
      ["list_trending_entities", { path: "/v1/discover/trending?limit=5" }],
      ["get_news", { path: `/v1/news/${ids.news.id}` }],
      ["get_x_account", { path: `/v1/x-accounts/${encodeURIComponent(ids.xAccount.id)}` }],
      ["get_event", { path: `/v1/events/${ids.event.slug}` }],
    ];
    for (const [operation, request] of ok) await call(operation, { ...request, key }, 200);

    // One example per error code.
    const projectPath = `/v1/projects/${ids.project.slug}`;
    await call("error-401", { path: projectPath, key: null, note: "no Authorization header" }, 401);
    await call("error-402", {
      method: "POST", path: "/v1/search", body: { q: "swap" }, key: newKey("pro", 1),
      note: "a key with 1 credit left; search costs 2",
    }, 402);
    await call("error-403", { path: "/v1/markets/snapshot", key: newKey("pro", 100, ["projects"]), note: "a key with only the projects scope" }, 403);
    await call("error-404", { path: "/v1/projects/no-such-project", key }, 404);
    await call("error-422", { path: "/v1/markets/top-movers?period=1h&limit=50&sort=desc", key, note: "three problems, all reported" }, 422);
    const freeKey = newKey("free", 1_000);
    for (let i = 0; i < tierRateLimits.free; i++) {
      const response = await app.request("/v1/markets/snapshot", { headers: { authorization: `Bearer ${freeKey}` } });
      await response.text();
    }
    await call("error-429", {
      path: "/v1/markets/snapshot", key: freeKey, showHeaders: true,
      note: `request ${tierRateLimits.free + 1} within one minute on a free key`,
    }, 429);
    clock.now = EXAMPLES_AS_OF.getTime() + 7 * 3_600_000;
    await call("error-500", { path: "/v1/markets/snapshot", key, note: "the market snapshot is more than 6 hours old" }, 500);
    // Last, so that adding them left every earlier example's numbers as they were.
    await call("get_key", { path: "/v1/key", key }, 200);
    clock.now = EXAMPLES_NOW;
    const graph: Array<[OperationId, Call]> = [
      ["get_token", { path: `/v1/tokens/${encodeURIComponent(ids.marketToken.id)}` }],
      ["get_token_unlocks", { path: `/v1/tokens/${encodeURIComponent(ids.unlockToken.id)}/unlocks?days=90&limit=3` }],
      ["list_narratives", { path: "/v1/narratives?limit=3" }],
      ["get_narrative", { path: `/v1/narratives/${ids.narrative.slug}?limit=3` }],
      ["get_fund", { path: `/v1/funds/${ids.fund.slug}?limit=3` }],
      ["get_stock_news", { path: `/v1/stocks/${ids.stock.slug}/news?limit=3` }],
    ];
    for (const [operation, request] of graph) await call(operation, { ...request, key }, 200);

    service.close();
    return examples;
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
}

/** Replaces the body of every marker pair; every example must have exactly one marker and vice versa. */
function replaceBlocks(markdown: string, examples: readonly Example[]): string {
  const byName = new Map(examples.map((example) => [example.name, example]));
  const used = new Set<string>();
  const result = markdown.replace(/<!-- example:([a-z0-9_-]+) -->\n[\s\S]*?<!-- \/example -->/g, (_match, name: string) => {
    const example = byName.get(name);
    if (example === undefined) throw new Error(`docs/api.md has a marker for an unknown example "${name}"`);
    if (used.has(name)) throw new Error(`docs/api.md has two markers for "${name}"`);
    used.add(name);
    return `<!-- example:${name} -->\n${render(example)}\n<!-- /example -->`;
  });
  const missing = examples.filter((example) => !used.has(example.name)).map((example) => example.name);
  if (missing.length > 0) throw new Error(`docs/api.md has no marker for: ${missing.join(", ")}`);
  return result;
}

if (process.argv[1] !== undefined && import.meta.url === pathToFileURL(process.argv[1]).href) {
  const examples = await collectExamples();
  writeFileSync(API_MD, replaceBlocks(readFileSync(API_MD, "utf8"), examples));
  console.log(`docs/api.md: ${examples.length} examples written`);
}
