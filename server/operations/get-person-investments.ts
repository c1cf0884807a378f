// 3. GET /v1/people/{slug}/investments: up to 20 verified invested projects, as identities only.
import { z } from "zod";
import { notFound } from "../errors.ts";
import { firstRows, limitApplied, limitQuery, pathSlug, personRef, projectRef, recordCount } from "./_schemas.ts";
import { defineOperation } from "./operation.ts";

/** Default and maximum: the whole bounded list (at most 20 are kept per person). */
export const PERSON_INVESTMENTS_DEFAULT_LIMIT = 20;
const PERSON_INVESTMENTS_MAX_LIMIT = 20;

export const getPersonInvestmentsRequest = z.strictObject({
  params: z.strictObject({ slug: pathSlug }),
  query: z.strictObject({ limit: limitQuery(PERSON_INVESTMENTS_MAX_LIMIT, PERSON_INVESTMENTS_DEFAULT_LIMIT) }),
});

export const getPersonInvestmentsResponse = z.strictObject({
  kind: z.literal("person_investments"),
  id: z.string(),
  person: personRef,
  limit: limitApplied(PERSON_INVESTMENTS_MAX_LIMIT),
  investment_count: recordCount,
  results: z.array(projectRef),
});
export type GetPersonInvestmentsResponse = z.output<typeof getPersonInvestmentsResponse>;

interface PersonRow { id: string; slug: string; full_name: string; investment_count: number }
type InvestmentRow = z.output<typeof projectRef>;

export const getPersonInvestments = defineOperation({
  id: "get_person_investments",
  request: getPersonInvestmentsRequest,
  response: getPersonInvestmentsResponse,
  keepAnswers: {},
  prepare({ snapshot }) {
    const personBySlug = snapshot.prepare<[string], PersonRow>(
      "SELECT id, slug, full_name, investment_count FROM people WHERE slug = ?",
    );
    const investmentsOf = snapshot.prepare<[string], InvestmentRow>(`
      SELECT p.id AS id, p.slug AS slug, p.name AS name
      FROM person_investments i JOIN projects p ON p.id = i.project_id
      WHERE i.person_id = ? ORDER BY i.position LIMIT ${PERSON_INVESTMENTS_MAX_LIMIT}`);
    return ({ params, query }): GetPersonInvestmentsResponse | typeof notFound => {
      const person = personBySlug.get(params.slug);
      if (person === undefined) return notFound;
      const limit = query.limit;
      return {
        kind: "person_investments",
        id: person.id,
        person: { id: person.id, slug: person.slug, full_name: person.full_name },
        limit,
        investment_count: person.investment_count,
        results: firstRows(investmentsOf.all(person.id), limit),
      };
    };
  },
});
