// 25. GET /v1/stocks/{slug}/news: the curated stories naming a stock, newest first (decision 31).
import { z } from "zod";
import { notFound } from "../errors.ts";
import { dateTime, firstRows, limitApplied, limitQuery, pathSlug, recordCount, stockRef } from "./_schemas.ts";
import { NEWS_ID_PATTERN } from "./get-news.ts";
import { defineOperation } from "./operation.ts";

/** Default and maximum: every story kept (at most 20 per stock). */
export const STOCK_NEWS_DEFAULT_LIMIT = 20;
const STOCK_NEWS_MAX_LIMIT = 20;

export const getStockNewsRequest = z.strictObject({
  params: z.strictObject({ slug: pathSlug }),
  query: z.strictObject({ limit: limitQuery(STOCK_NEWS_MAX_LIMIT, STOCK_NEWS_DEFAULT_LIMIT) }),
});

const story = z.strictObject({ id: z.string().regex(NEWS_ID_PATTERN), title: z.string(), published_at: dateTime });

export const getStockNewsResponse = z.strictObject({
  kind: z.literal("stock_news"),
  id: z.string(),
  stock: stockRef,
  limit: limitApplied(STOCK_NEWS_MAX_LIMIT),
  story_count: recordCount,
  stories: z.array(story),
});
export type GetStockNewsResponse = z.output<typeof getStockNewsResponse>;

interface StockRow { id: string; slug: string; name: string; ticker: string; story_count: number }

export const getStockNews = defineOperation({
  id: "get_stock_news",
  request: getStockNewsRequest,
  response: getStockNewsResponse,
  keepAnswers: {},
  prepare({ snapshot }) {
    const stockBySlug = snapshot.prepare<[string], StockRow>("SELECT id, slug, name, ticker, story_count FROM stocks WHERE slug = ?");
    const storiesOf = snapshot.prepare<[string], z.output<typeof story>>(`
      SELECT n.id AS id, n.title AS title, n.published_at AS published_at
      FROM stock_news s JOIN news n ON n.id = s.news_id
      WHERE s.stock_id = ? ORDER BY s.position LIMIT ${STOCK_NEWS_MAX_LIMIT}`);
    return ({ params, query }): GetStockNewsResponse | typeof notFound => {
      const stock = stockBySlug.get(params.slug);
      if (stock === undefined) return notFound;
      return {
        kind: "stock_news",
        id: stock.id,
        stock: { id: stock.id, slug: stock.slug, name: stock.name, ticker: stock.ticker },
        limit: query.limit,
        story_count: stock.story_count,
        stories: firstRows(storiesOf.all(stock.id), query.limit),
      };
    };
  },
});
