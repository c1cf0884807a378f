// 8. GET /v1/projects/{slug}/funding: up to 20 verified rounds; investors and sources omitted.
import { z } from "zod";
import { notFound } from "../errors.ts";
import { dateTime, noQuery, pathSlug, projectRef, recordCount } from "./_schemas.ts";
import { defineOperation } from "./operation.ts";

export const getProjectFundingRequest = z.strictObject({
  params: z.strictObject({ slug: pathSlug }),
  query: noQuery,
});

const round = z.strictObject({ round_type: z.string(), amount_usd: z.number(), announced_at: dateTime });

export const getProjectFundingResponse = z.strictObject({
  kind: z.literal("project_funding"),
  id: z.string(),
  project: projectRef,
  round_count: recordCount,
  rounds: z.array(round),
});
export type GetProjectFundingResponse = z.output<typeof getProjectFundingResponse>;

interface ProjectRow { id: string; slug: string; name: string; round_count: number }

export const getProjectFunding = defineOperation({
  id: "get_project_funding",
  request: getProjectFundingRequest,
  response: getProjectFundingResponse,
  keepAnswers: {},
  prepare({ snapshot }) {
    const projectBySlug = snapshot.prepare<[string], ProjectRow>(
      "SELECT id, slug, name, round_count FROM projects WHERE slug = ?",
    );
    const roundsOf = snapshot.prepare<[string], z.output<typeof round>>(
      "SELECT round_type, amount_usd, announced_at FROM funding_rounds WHERE project_id = ? ORDER BY position LIMIT 20",
    );
    return ({ params }): GetProjectFundingResponse | typeof notFound => {
      const project = projectBySlug.get(params.slug);
      if (project === undefined) return notFound;
      return {
        kind: "project_funding",
        id: project.id,
        project: { id: project.id, slug: project.slug, name: project.name },
        round_count: project.round_count,
        rounds: roundsOf.all(project.id),
      };
    };
  },
});
