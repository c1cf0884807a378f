// 7. GET /v1/projects/{slug}/events: up to 20 verified events; only id, type and occurred_at.
import { z } from "zod";
import { notFound } from "../errors.ts";
import { dateTime, firstRows, limitApplied, limitQuery, pathSlug, projectRef, recordCount } from "./_schemas.ts";
import { defineOperation } from "./operation.ts";

export const PROJECT_EVENTS_DEFAULT_LIMIT = 20;
const PROJECT_EVENTS_MAX_LIMIT = 20;

export const getProjectEventsRequest = z.strictObject({
  params: z.strictObject({ slug: pathSlug }),
  query: z.strictObject({ limit: limitQuery(PROJECT_EVENTS_MAX_LIMIT, PROJECT_EVENTS_DEFAULT_LIMIT) }),
});

const projectEvent = z.strictObject({ id: z.string(), type: z.string(), occurred_at: dateTime });

export const getProjectEventsResponse = z.strictObject({
  kind: z.literal("project_events"),
  id: z.string(),
  project: projectRef,
  limit: limitApplied(PROJECT_EVENTS_MAX_LIMIT),
  event_count: recordCount,
  events: z.array(projectEvent),
});
export type GetProjectEventsResponse = z.output<typeof getProjectEventsResponse>;

interface ProjectRow { id: string; slug: string; name: string; event_count: number }

export const getProjectEvents = defineOperation({
  id: "get_project_events",
  request: getProjectEventsRequest,
  response: getProjectEventsResponse,
  keepAnswers: {},
  prepare({ snapshot }) {
    const projectBySlug = snapshot.prepare<[string], ProjectRow>(
      "SELECT id, slug, name, event_count FROM projects WHERE slug = ?",
    );
    const eventsOf = snapshot.prepare<[string], z.output<typeof projectEvent>>(
      `SELECT id, type, occurred_at FROM project_events WHERE project_id = ? ORDER BY position LIMIT ${PROJECT_EVENTS_MAX_LIMIT}`,
    );
    return ({ params, query }): GetProjectEventsResponse | typeof notFound => {
      const project = projectBySlug.get(params.slug);
      if (project === undefined) return notFound;
      const limit = query.limit;
      return {
        kind: "project_events",
        id: project.id,
        project: { id: project.id, slug: project.slug, name: project.name },
        limit,
        event_count: project.event_count,
        events: firstRows(eventsOf.all(project.id), limit),
      };
    };
  },
});
