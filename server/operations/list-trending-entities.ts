// 16. GET /v1/discover/trending: the top-20 trending snapshot, live (≤2 h old) or for one of the
// previous 30 UTC days; the entity filter and limit apply inside the fixed snapshot.
import { z } from "zod";
import { ApiError, noLiveTrending, noTrendingRanking, staleData } from "../errors.ts";
import { TRENDING_DATED_WINDOW_DAYS } from "../policy.ts";
import { JsonText } from "../prebuilt-json.ts";
import { date as calendarDay, dateTime, enumQuery, limitApplied, limitQuery, linkedEntity, rankOf } from "./_schemas.ts";
import { curatedCount, freshUntil } from "./_freshness.ts";
import { rankedEntry, rankedJson, type RankedEntry } from "./_ranked-json.ts";
import { defineOperation, invalidParameter } from "./operation.ts";

export const TRENDING_ENTITIES_DEFAULT_LIMIT = 20;
/** Each day's snapshot holds its top 20. */
const TRENDING_ENTITIES_MAX_LIMIT = 20;
/** The spec's four families, then those the sources may also name (decision 31). */
const entityTypes = ["project", "token", "person", "x_account", "stock", "narrative"] as const;
const DAY_MS = 86_400_000;

/** YYYY-MM-DD that is also a real calendar date. */
const calendarDate = z
  .string()
  .regex(/^\d{4}-\d{2}-\d{2}$/, { message: "must be a UTC date in the form YYYY-MM-DD", abort: true })
  .refine((value) => {
    const at = Date.parse(`${value}T00:00:00.000Z`);
    return Number.isFinite(at) && new Date(at).toISOString().startsWith(value);
  }, { message: "must be a real calendar date", params: { code: "invalid_date" } })
  .optional();

export const listTrendingEntitiesRequest = z.strictObject({
  params: z.strictObject({}),
  query: z.strictObject({ entity_type: enumQuery(entityTypes), date: calendarDate, limit: limitQuery(TRENDING_ENTITIES_MAX_LIMIT, TRENDING_ENTITIES_DEFAULT_LIMIT) }),
});

const rank = rankOf(TRENDING_ENTITIES_MAX_LIMIT);
const trendingEntry = z.discriminatedUnion("type", [
  z.strictObject({ type: z.literal("project"), rank, id: z.string(), slug: z.string(), name: z.string() }),
  z.strictObject({ type: z.literal("token"), rank, id: z.string(), slug: z.string(), name: z.string() }),
  z.strictObject({ type: z.literal("person"), rank, id: z.string(), slug: z.string(), full_name: z.string() }),
  z.strictObject({ type: z.literal("x_account"), rank, id: z.string(), linked_entity: linkedEntity.optional() }),
  z.strictObject({ type: z.literal("stock"), rank, id: z.string(), slug: z.string(), name: z.string() }),
  z.strictObject({ type: z.literal("narrative"), rank, id: z.string(), slug: z.string(), name: z.string() }),
]);

export const listTrendingEntitiesResponse = z.strictObject({
  kind: z.literal("trending_topics"),
  ranking_basis: z.literal("service_trending_signal"),
  as_of: dateTime,
  limit: limitApplied(TRENDING_ENTITIES_MAX_LIMIT),
  entity_type: z.enum(entityTypes).nullable(),
  date: calendarDay.nullable(),
  results: z.array(trendingEntry),
});
export type ListTrendingEntitiesResponse = z.output<typeof listTrendingEntitiesResponse>;
type TrendingEntry = z.output<typeof trendingEntry>;

interface EntryRow {
  type: TrendingEntry["type"]; rank: number; id: string;
  slug: string | null; name: string | null; full_name: string | null;
  linked_type: "project" | "person" | null; linked_id: string | null;
}

/** One query for every family; each entry then keeps only its family's identity fields. */
function _entry(row: EntryRow): TrendingEntry {
  switch (row.type) {
    case "person":
      return { type: row.type, rank: row.rank, id: row.id, slug: row.slug!, full_name: row.full_name! };
    case "x_account":
      return row.linked_type === null
        ? { type: row.type, rank: row.rank, id: row.id }
        : { type: row.type, rank: row.rank, id: row.id, linked_entity: { type: row.linked_type, id: row.linked_id! } };
    default:
      return { type: row.type, rank: row.rank, id: row.id, slug: row.slug!, name: row.name! };
  }
}

export const listTrendingEntities = defineOperation({
  id: "list_trending_entities",
  request: listTrendingEntitiesRequest,
  response: listTrendingEntitiesResponse,
  // A date outside the window is a 422 even for a key short of credits (decision 3: 422 before 402).
  check({ query }, { now }) {
    if (query.date === undefined) return undefined;
    const today = Math.floor(now() / DAY_MS) * DAY_MS;
    const day = Date.parse(`${query.date}T00:00:00.000Z`);
    if (day < today && day >= today - TRENDING_DATED_WINDOW_DAYS * DAY_MS) return undefined;
    return invalidParameter(
      "date",
      `Query parameter "date" must be one of the previous ${TRENDING_DATED_WINDOW_DAYS} UTC days; leave it out for today's live ranking.`,
      "outside_window",
    );
  },
  prepare({ snapshot, now }) {
    const asOfByDay = new Map(
      snapshot.prepare<[], { day: string; as_of: string }>("SELECT day, as_of FROM trending_days").all().map((r) => [r.day, r.as_of]),
    );
    const liveUntil = freshUntil(asOfByDay.get("live"), "trending_live");
    // Dated signals but no live one ever curated: the live ranking is not stale, it does not exist.
    const liveCurated = curatedCount(snapshot, "trending_live") > 0;
    // Every day's top 20, serialised once (_ranked-json.ts); 31 days at most.
    const rows = snapshot.prepare<[], EntryRow & { day: string }>(`
      SELECT e.entity_type AS type, 0 AS rank, e.entity_id AS id,
             coalesce(p.slug, t.slug, h.slug, s.slug, n.slug) AS slug, coalesce(p.name, t.name, s.name, n.name) AS name, h.full_name AS full_name,
             x.linked_type AS linked_type, x.linked_id AS linked_id, e.day AS day
      FROM trending_entities e
        LEFT JOIN projects p ON e.entity_type = 'project' AND p.id = e.entity_id
        LEFT JOIN tokens t ON e.entity_type = 'token' AND t.id = e.entity_id
        LEFT JOIN people h ON e.entity_type = 'person' AND h.id = e.entity_id
        LEFT JOIN x_accounts x ON e.entity_type = 'x_account' AND x.id = e.entity_id
        LEFT JOIN stocks s ON e.entity_type = 'stock' AND s.id = e.entity_id
        LEFT JOIN narratives n ON e.entity_type = 'narrative' AND n.id = e.entity_id
      ORDER BY e.day, e.position`).all();
    const entriesByDay = new Map<string, Array<RankedEntry & { type: TrendingEntry["type"] }>>();
    for (const row of rows) {
      if (!entriesByDay.has(row.day)) entriesByDay.set(row.day, []);
      entriesByDay.get(row.day)!.push({ type: row.type, ...rankedEntry(_entry(row)) });
    }
    return ({ query }): JsonText | ApiError => {
      const date = query.date ?? null;
      let asOf: string | undefined;
      if (date === null) {
        if (!liveCurated) return noLiveTrending;
        if (now() > liveUntil) return staleData;
        asOf = asOfByDay.get("live");
      } else {
        asOf = asOfByDay.get(date);
        if (asOf === undefined) return noTrendingRanking(date);
      }
      const entityType = query.entity_type ?? null;
      const limit = query.limit;
      const results = rankedJson(entriesByDay.get(date ?? "live") ?? [], limit, entityType === null ? undefined : (entry) => entry.type === entityType);
      return new JsonText(
        `{"kind":"trending_topics","ranking_basis":"service_trending_signal","as_of":${JSON.stringify(asOf)},"limit":${limit},` +
          `"entity_type":${JSON.stringify(entityType)},"date":${JSON.stringify(date)},"results":${results}}`,
      );
    };
  },
});
