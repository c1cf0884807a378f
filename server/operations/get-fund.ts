// 24. GET /v1/funds/{slug}: a fund, its portfolio (the projects of the verified rounds it invested
// in, latest round first) and its partners (the people with a current role at it) (decision 31).
import { z } from "zod";
import { notFound } from "../errors.ts";
import { firstRows, fundTypeValues, limitApplied, limitQuery, pathSlug, personRef, projectRef, recordCount } from "./_schemas.ts";
import { defineOperation } from "./operation.ts";

/** Default and maximum: every portfolio project and partner kept (at most 20 of each per fund). */
export const FUND_DEFAULT_LIMIT = 20;
const FUND_MAX_LIMIT = 20;

export const getFundRequest = z.strictObject({
  params: z.strictObject({ slug: pathSlug }),
  query: z.strictObject({ limit: limitQuery(FUND_MAX_LIMIT, FUND_DEFAULT_LIMIT) }),
});

export const getFundResponse = z.strictObject({
  kind: z.literal("fund"),
  id: z.string(),
  slug: z.string(),
  name: z.string(),
  fund_type: z.enum(fundTypeValues),
  limit: limitApplied(FUND_MAX_LIMIT),
  portfolio_count: recordCount,
  portfolio: z.array(projectRef),
  partner_count: recordCount,
  partners: z.array(personRef),
});
export type GetFundResponse = z.output<typeof getFundResponse>;

interface FundRow { id: string; slug: string; name: string; fund_type: (typeof fundTypeValues)[number]; portfolio_count: number; partner_count: number }

export const getFund = defineOperation({
  id: "get_fund",
  request: getFundRequest,
  response: getFundResponse,
  keepAnswers: {},
  prepare({ snapshot }) {
    const fundBySlug = snapshot.prepare<[string], FundRow>(
      "SELECT id, slug, name, fund_type, portfolio_count, partner_count FROM funds WHERE slug = ?",
    );
    const portfolioOf = snapshot.prepare<[string], z.output<typeof projectRef>>(`
      SELECT p.id AS id, p.slug AS slug, p.name AS name
      FROM fund_portfolio f JOIN projects p ON p.id = f.project_id
      WHERE f.fund_id = ? ORDER BY f.position LIMIT ${FUND_MAX_LIMIT}`);
    const partnersOf = snapshot.prepare<[string], z.output<typeof personRef>>(`
      SELECT p.id AS id, p.slug AS slug, p.full_name AS full_name
      FROM fund_partners f JOIN people p ON p.id = f.person_id
      WHERE f.fund_id = ? ORDER BY f.position LIMIT ${FUND_MAX_LIMIT}`);
    return ({ params, query }): GetFundResponse | typeof notFound => {
      const fund = fundBySlug.get(params.slug);
      if (fund === undefined) return notFound;
      return {
        kind: "fund",
        id: fund.id,
        slug: fund.slug,
        name: fund.name,
        fund_type: fund.fund_type,
        limit: query.limit,
        portfolio_count: fund.portfolio_count,
        portfolio: firstRows(portfolioOf.all(fund.id), query.limit),
        partner_count: fund.partner_count,
        partners: firstRows(partnersOf.all(fund.id), query.limit),
      };
    };
  },
});
