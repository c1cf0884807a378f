// 23. GET /v1/narratives/{slug}: a narrative, its member projects in the curators' order and its
// timeline, oldest first (decision 31).
import { z } from "zod";
import { notFound } from "../errors.ts";
import { date, firstRows, limitApplied, limitQuery, pathSlug, projectRef, recordCount } from "./_schemas.ts";
import { defineOperation } from "./operation.ts";

/** Default and maximum: every member project kept (at most 20 per narrative). */
export const NARRATIVE_DEFAULT_LIMIT = 20;
const NARRATIVE_MAX_LIMIT = 20;

export const getNarrativeRequest = z.strictObject({
  params: z.strictObject({ slug: pathSlug }),
  query: z.strictObject({ limit: limitQuery(NARRATIVE_MAX_LIMIT, NARRATIVE_DEFAULT_LIMIT) }),
});

const timelineEntry = z.strictObject({ date, title: z.string().max(200) });

export const getNarrativeResponse = z.strictObject({
  kind: z.literal("narrative"),
  id: z.string(),
  slug: z.string(),
  name: z.string(),
  limit: limitApplied(NARRATIVE_MAX_LIMIT),
  project_count: recordCount,
  projects: z.array(projectRef),
  timeline: z.array(timelineEntry).max(20),
});
export type GetNarrativeResponse = z.output<typeof getNarrativeResponse>;

interface NarrativeRow { id: string; slug: string; name: string; project_count: number }

export const getNarrative = defineOperation({
  id: "get_narrative",
  request: getNarrativeRequest,
  response: getNarrativeResponse,
  keepAnswers: {},
  prepare({ snapshot }) {
    const narrativeBySlug = snapshot.prepare<[string], NarrativeRow>("SELECT id, slug, name, project_count FROM narratives WHERE slug = ?");
    const projectsOf = snapshot.prepare<[string], z.output<typeof projectRef>>(`
      SELECT p.id AS id, p.slug AS slug, p.name AS name
      FROM narrative_projects n JOIN projects p ON p.id = n.project_id
      WHERE n.narrative_id = ? ORDER BY n.position LIMIT ${NARRATIVE_MAX_LIMIT}`);
    const timelineOf = snapshot.prepare<[string], z.output<typeof timelineEntry>>(
      "SELECT date, title FROM narrative_timeline WHERE narrative_id = ? ORDER BY position",
    );
    return ({ params, query }): GetNarrativeResponse | typeof notFound => {
      const narrative = narrativeBySlug.get(params.slug);
      if (narrative === undefined) return notFound;
      return {
        kind: "narrative",
        id: narrative.id,
        slug: narrative.slug,
        name: narrative.name,
        limit: query.limit,
        project_count: narrative.project_count,
        projects: firstRows(projectsOf.all(narrative.id), query.limit),
        timeline: timelineOf.all(narrative.id),
      };
    };
  },
});
