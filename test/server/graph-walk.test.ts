// Decision 30, as a consumer meets it: starting only from search, trending, rankings and top movers
// on the bundled sample, every identity any answer returns is followed into its detail operation,
// and everything that answer returns is followed in turn, until nothing new is found. Every one
// must open (200); an identity that does not is a dead end, and the test lists them all. Over
// HTTP, on a real `cei serve` child with a real SQLite meter, every answer checked against the
// OpenAPI document. The server reads the wall clock, so the sample is written as of now (as
// `npm start` does): it is fresh relative to any as-of, so the walk is the same on any date.
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, expect, it } from "vitest";
import { compileSnapshot } from "../../compiler/compile.ts";
import { writeSample } from "../../data/sample.ts";
import { openMeterDatabase } from "../../server/meter/sqlite/database.ts";
import { createKey } from "../../server/meter/sqlite/keys.ts";
import { openApiContract } from "../_support/openapi.ts";
import { CEI_BIN, startChildServer, type ChildServer } from "../_support/processes.ts";
import { testTempDir } from "../_support/temp.ts";

const X_SECRET = "graph-walk-x-secret-0123456789abcdef";
const DAY_MS = 86_400_000;

let server: ChildServer;
let key: string;
let asOf: Date;
beforeAll(async () => {
  const dir = testTempDir("cei-graph-walk-");
  asOf = new Date();
  await writeSample({ outDir: join(dir, "sample"), asOf, scale: 1 });
  const snapshot = join(dir, "snapshot.db");
  const compiled = await compileSnapshot({ sourceDir: join(dir, "sample"), outFile: snapshot, compiledAt: asOf, xSecret: X_SECRET });
  if (!compiled.ok) throw new Error(`the sample did not compile:\n${compiled.problems.join("\n")}`);
  const meterFile = join(dir, "meter.db");
  const admin = openMeterDatabase(meterFile);
  key = createKey(admin, { tier: "internal", credits: 1_000_000 }, asOf.getTime()).key;
  admin.close();
  const secretFile = join(dir, "x-secret");
  writeFileSync(secretFile, X_SECRET, { mode: 0o600 });
  server = await startChildServer(
    [CEI_BIN, "serve", "--snapshot", snapshot, "--meter", meterFile, "--port", "0", "--host", "127.0.0.1",
      "--x-secret-file", secretFile, "--release-trending-projects", "--log-level", "warn", "--no-watch"],
    (lines) => /^cei serving .* on (http:\/\/127\.0\.0\.1:\d+)/.exec(lines.at(-1)!)?.[1],
  );
}, 120_000);
afterAll(async () => {
  await server?.stop("SIGTERM");
});

/** An identity as answers give it: enough to open it (a slug or an id) and its family. */
interface Identity { type: string; id: string; slug?: string }
// eslint-disable-next-line @typescript-eslint/no-explicit-any
type Data = any;

const contract = openApiContract(true);

async function call(method: "GET" | "POST", path: string, body?: unknown): Promise<{ status: number; data: Data; text: string }> {
  const headers: Record<string, string> = { authorization: `Bearer ${key}` };
  if (body !== undefined) headers["content-type"] = "application/json";
  const response = await fetch(server.url + path, { method, headers, body: body === undefined ? undefined : JSON.stringify(body) });
  const text = await response.text();
  contract.expectDescribed(method, path, { status: response.status, headers: response.headers, text });
  return { status: response.status, data: response.status === 200 ? (JSON.parse(text) as { data: Data }).data : undefined, text };
}

const segment = encodeURIComponent;

/** Each family's detail operations, and the identities each answer links to, by the name of the link. */
const detail: Record<string, (identity: Identity) => Array<{ path: string; links(data: Data): Record<string, Identity[]> }>> = {
  project: ({ slug }) => [{ path: `/v1/projects/${segment(slug!)}`, links: () => ({}) }],
  token: ({ id }) => [{ path: `/v1/tokens/${segment(id)}`, links: (d) => ({ "token.project": d.project === null ? [] : [{ ...d.project, type: "project" }] }) }],
  person: ({ slug }) => [
    { path: `/v1/people/${segment(slug!)}/investments`, links: (d) => ({ "person.investments": d.results.map((p: Identity) => ({ ...p, type: "project" })) }) },
    { path: `/v1/people/${segment(slug!)}/roles`, links: (d) => ({ "person.roles": d.results.map((r: { project: Identity }) => ({ ...r.project, type: "project" })) }) },
  ],
  fund: ({ slug }) => [{
    path: `/v1/funds/${segment(slug!)}`,
    links: (d) => ({
      "fund.portfolio": d.portfolio.map((p: Identity) => ({ ...p, type: "project" })),
      "fund.partners": d.partners.map((p: Identity) => ({ ...p, type: "person" })),
    }),
  }],
  stock: ({ slug }) => [{ path: `/v1/stocks/${segment(slug!)}/news`, links: (d) => ({ "stock.stories": d.stories.map((s: Identity) => ({ type: "news", id: s.id })) }) }],
  narrative: ({ slug }) => [{ path: `/v1/narratives/${segment(slug!)}`, links: (d) => ({ "narrative.projects": d.projects.map((p: Identity) => ({ ...p, type: "project" })) }) }],
  news: ({ id }) => [{ path: `/v1/news/${id}`, links: (d) => ({ "news.entities": d.entities }) }],
  event: ({ slug }) => [{ path: `/v1/events/${segment(slug!)}`, links: () => ({}) }],
  x_account: ({ id }) => [{
    path: `/v1/x-accounts/${segment(id)}`,
    // A link names its entity by id only: it opens through search by exact id (decision 30).
    links: (d) => ({ "x_account.linked_entity": d.linked_entity === undefined ? [] : [{ type: d.linked_entity.type, id: d.linked_entity.id }] }),
  }],
};

/** Families whose detail path takes a slug: an identity given by id alone is found by exact-id search. */
const bySlug = new Set(["project", "person", "fund", "stock", "narrative", "event"]);

const SEARCH_TYPES = [["project", "fund", "person", "token", "stock", "x_account"], ["news", "event", "narrative"]];
/** Two-letter starts of the sample's syllable names, and words of its titles and themes. */
const SEARCH_TEXTS = ["ba", "de", "fi", "ko", "lu", "ma", "ne", "po", "ri", "su", "ta", "vo", "ze", "raises", "summit", "staking"];

it("every identity any answer returns opens with its detail operation, recursively", async () => {
  const seeds: Identity[] = [];
  const seen = new Set<string>();
  const resolvedIds = new Set<string>();
  const opened = new Map<string, number>();
  const followed = new Map<string, number>();
  const deadEnds: string[] = [];

  const fromList = async (path: string, lists: string[], body?: unknown) => {
    const answer = await call(body === undefined ? "GET" : "POST", path, body);
    expect(answer.status, `${path}: ${answer.text}`).toBe(200);
    for (const list of lists) seeds.push(...(answer.data[list] as Identity[]));
  };
  for (const q of SEARCH_TEXTS) {
    for (const types of SEARCH_TYPES) await fromList("/v1/search", ["results"], { q, types, limit: 20 });
  }
  await fromList("/v1/discover/trending", ["results"]);
  // Days 1-29 before the as-of: still inside the 30-day window should midnight pass during the walk.
  for (let d = 1; d < 30; d++) {
    await fromList(`/v1/discover/trending?date=${new Date(asOf.getTime() - d * DAY_MS).toISOString().slice(0, 10)}`, ["results"]);
  }
  await fromList("/v1/projects/trending", ["results"]);
  await fromList("/v1/funds/rankings", ["results"]);
  await fromList("/v1/stocks/rankings?limit=30", ["results"]);
  await fromList("/v1/narratives", ["results"]);
  for (const period of ["24h", "7d"]) await fromList(`/v1/markets/top-movers?period=${period}&limit=20`, ["gainers", "losers"]);

  const queue = [...seeds];
  /** An identity given by id alone where its path takes a slug (a link) is found by exact id, once per id, wherever it was met. */
  const resolve = async (identity: Identity): Promise<Identity | undefined> => {
    if (!bySlug.has(identity.type) || identity.slug !== undefined) return identity;
    const found = await call("POST", "/v1/search", { q: identity.id, types: [identity.type], limit: 20 });
    return (found.data?.results as Identity[] | undefined)?.find((hit) => hit.id === identity.id);
  };
  const visit = async (given: Identity) => {
    const name = `${given.type}:${given.id}`;
    const byId = bySlug.has(given.type) && given.slug === undefined;
    if (byId ? resolvedIds.has(name) : seen.has(name)) return;
    if (byId) resolvedIds.add(name);
    const identity = await resolve(given);
    if (identity === undefined) {
      deadEnds.push(`${name}: search finds no ${given.type} with this exact id`);
      return;
    }
    if (seen.has(name)) return;
    seen.add(name);
    for (const { path, links } of detail[identity.type]!(identity)) {
      const answer = await call("GET", path);
      if (answer.status !== 200) {
        deadEnds.push(`${name}: GET ${path} answered ${answer.status} ${answer.text}`);
        continue;
      }
      for (const [link, identities] of Object.entries(links(answer.data))) {
        followed.set(link, (followed.get(link) ?? 0) + identities.length);
        queue.push(...identities);
      }
    }
    opened.set(identity.type, (opened.get(identity.type) ?? 0) + 1);
  };
  // Eight at a time, as a consumer's crawler would.
  const worker = async () => {
    for (let next = queue.shift(); next !== undefined; next = queue.shift()) await visit(next);
  };
  while (queue.length > 0) await Promise.all(Array.from({ length: 8 }, worker));

  expect(deadEnds).toEqual([]);
  // Every family was opened, and every kind of link an answer holds was followed.
  expect([...opened.keys()].sort()).toEqual(["event", "fund", "narrative", "news", "person", "project", "stock", "token", "x_account"]);
  expect([...followed].filter(([, n]) => n > 0).map(([link]) => link).sort()).toEqual([
    "fund.partners", "fund.portfolio", "narrative.projects", "news.entities", "person.investments", "person.roles",
    "stock.stories", "token.project", "x_account.linked_entity",
  ]);
}, 120_000);
