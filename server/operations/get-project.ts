// 5. GET /v1/projects/{slug}: the project identity of a visible project.
import { z } from "zod";
import { notFound } from "../errors.ts";
import { noQuery, pathSlug, projectIdentity } from "./_schemas.ts";
import { defineOperation } from "./operation.ts";

export const getProjectRequest = z.strictObject({
  params: z.strictObject({ slug: pathSlug }),
  query: noQuery,
});

export const getProjectResponse = projectIdentity;
export type GetProjectResponse = z.output<typeof getProjectResponse>;

export const getProject = defineOperation({
  id: "get_project",
  request: getProjectRequest,
  response: getProjectResponse,
  keepAnswers: {},
  prepare({ snapshot }) {
    const projectBySlug = snapshot.prepare<[string], GetProjectResponse>(
      "SELECT 'project' AS type, id, slug, name FROM projects WHERE slug = ?",
    );
    return ({ params }) => projectBySlug.get(params.slug) ?? notFound;
  },
});
