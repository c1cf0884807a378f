// 4. GET /v1/people/{slug}/roles: the projects a person holds or held a role at; titles omitted.
import { z } from "zod";
import { notFound } from "../errors.ts";
import { firstRows, limitApplied, limitQuery, pathSlug, personRef, projectRef, recordCount } from "./_schemas.ts";
import { defineOperation } from "./operation.ts";

export const PERSON_ROLES_DEFAULT_LIMIT = 20;
const PERSON_ROLES_MAX_LIMIT = 20;

export const getPersonRolesRequest = z.strictObject({
  params: z.strictObject({ slug: pathSlug }),
  query: z.strictObject({ limit: limitQuery(PERSON_ROLES_MAX_LIMIT, PERSON_ROLES_DEFAULT_LIMIT) }),
});

const roleEntry = z.strictObject({ project: projectRef, is_current: z.boolean() });

export const getPersonRolesResponse = z.strictObject({
  kind: z.literal("person_roles"),
  id: z.string(),
  person: personRef,
  limit: limitApplied(PERSON_ROLES_MAX_LIMIT),
  role_count: recordCount,
  results: z.array(roleEntry),
});
export type GetPersonRolesResponse = z.output<typeof getPersonRolesResponse>;

interface PersonRow { id: string; slug: string; full_name: string; role_count: number }
interface RoleRow { id: string; slug: string; name: string; is_current: number }

export const getPersonRoles = defineOperation({
  id: "get_person_roles",
  request: getPersonRolesRequest,
  response: getPersonRolesResponse,
  keepAnswers: {},
  prepare({ snapshot }) {
    const personBySlug = snapshot.prepare<[string], PersonRow>(
      "SELECT id, slug, full_name, role_count FROM people WHERE slug = ?",
    );
    const rolesOf = snapshot.prepare<[string], RoleRow>(`
      SELECT p.id AS id, p.slug AS slug, p.name AS name, r.is_current AS is_current
      FROM person_roles r JOIN projects p ON p.id = r.project_id
      WHERE r.person_id = ? ORDER BY r.position LIMIT ${PERSON_ROLES_MAX_LIMIT}`);
    return ({ params, query }): GetPersonRolesResponse | typeof notFound => {
      const person = personBySlug.get(params.slug);
      if (person === undefined) return notFound;
      const limit = query.limit;
      return {
        kind: "person_roles",
        id: person.id,
        person: { id: person.id, slug: person.slug, full_name: person.full_name },
        limit,
        role_count: person.role_count,
        // Nesting and 0/1 → boolean are the only reshaping SQL cannot express as aliases.
        results: firstRows(rolesOf.all(person.id), limit).map((row) => ({
          project: { id: row.id, slug: row.slug, name: row.name },
          is_current: row.is_current === 1,
        })),
      };
    };
  },
});
