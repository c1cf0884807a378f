// 17. GET /v1/news/{id}: one explicitly curated story.
import { z } from "zod";
import { notFound } from "../errors.ts";
import { dateTime, noQuery } from "./_schemas.ts";
import { defineOperation } from "./operation.ts";

export const NEWS_ID_PATTERN = /^story:[0-9a-f]{8}-[0-9a-f]{4}-[1-5][0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;

export const getNewsRequest = z.strictObject({
  params: z.strictObject({
    id: z.string().length(42, "must be exactly 42 characters").regex(NEWS_ID_PATTERN, "must be story:<uuid> in lower-case hex"),
  }),
  query: noQuery,
});

/** What a story may name: the families news.jsonl may link. */
const newsEntityTypes = ["project", "token", "person", "fund", "stock", "narrative"] as const;
const newsEntity = z.strictObject({ type: z.enum(newsEntityTypes), id: z.string(), slug: z.string(), name: z.string() });

export const getNewsResponse = z.strictObject({
  type: z.literal("news"),
  kind: z.literal("news_detail"),
  id: z.string().regex(NEWS_ID_PATTERN),
  title: z.string(),
  summary: z.string(),
  published_at: dateTime,
  sentiment: z.string(),
  language: z.string(),
  entities: z.array(newsEntity),
});
export type GetNewsResponse = z.output<typeof getNewsResponse>;

export const getNews = defineOperation({
  id: "get_news",
  request: getNewsRequest,
  response: getNewsResponse,
  keepAnswers: {},
  prepare({ snapshot }) {
    const storyById = snapshot.prepare<[string], Omit<GetNewsResponse, "entities">>(`
      SELECT 'news' AS type, 'news_detail' AS kind, id, title, summary, published_at, sentiment, language
      FROM news WHERE id = ?`);
    const entitiesOf = snapshot.prepare<[string], z.output<typeof newsEntity>>(
      "SELECT type, id, slug, name FROM news_entities WHERE news_id = ? ORDER BY position",
    );
    return ({ params }): GetNewsResponse | typeof notFound => {
      const story = storyById.get(params.id);
      if (story === undefined) return notFound;
      return { ...story, entities: entitiesOf.all(story.id) };
    };
  },
});
