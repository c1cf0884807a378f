// 6. GET /v1/projects/{slug}/features: up to 20 reviewed product features.
import { z } from "zod";
import { notFound } from "../errors.ts";
import { dateTime, firstRows, limitApplied, limitQuery, pathSlug, projectRef, recordCount } from "./_schemas.ts";
import { defineOperation } from "./operation.ts";

export const PROJECT_FEATURES_DEFAULT_LIMIT = 20;
const PROJECT_FEATURES_MAX_LIMIT = 20;

export const getProjectFeaturesRequest = z.strictObject({
  params: z.strictObject({ slug: pathSlug }),
  query: z.strictObject({ limit: limitQuery(PROJECT_FEATURES_MAX_LIMIT, PROJECT_FEATURES_DEFAULT_LIMIT) }),
});

const feature = z.strictObject({
  feature_id: z.string(),
  feature_name: z.string(),
  display_name: z.string(),
  category: z.string(),
  status: z.string(),
  primary_url: z.string().nullable(),
  docs_url: z.string().nullable(),
  app_url: z.string().nullable(),
  chain_ids: z.array(z.string()),
  last_verified_at: dateTime,
});

export const getProjectFeaturesResponse = z.strictObject({
  kind: z.literal("project_features"),
  id: z.string(),
  project: projectRef,
  limit: limitApplied(PROJECT_FEATURES_MAX_LIMIT),
  feature_count: recordCount,
  features: z.array(feature),
});
export type GetProjectFeaturesResponse = z.output<typeof getProjectFeaturesResponse>;

interface ProjectRow { id: string; slug: string; name: string; feature_count: number }
type FeatureRow = Omit<z.output<typeof feature>, "chain_ids"> & { chain_ids: string };

export const getProjectFeatures = defineOperation({
  id: "get_project_features",
  request: getProjectFeaturesRequest,
  response: getProjectFeaturesResponse,
  keepAnswers: {},
  prepare({ snapshot }) {
    const projectBySlug = snapshot.prepare<[string], ProjectRow>(
      "SELECT id, slug, name, feature_count FROM projects WHERE slug = ?",
    );
    const featuresOf = snapshot.prepare<[string], FeatureRow>(`
      SELECT feature_id, feature_name, display_name, category, status, primary_url, docs_url, app_url,
             chain_ids, last_verified_at
      FROM project_features WHERE project_id = ? ORDER BY position LIMIT ${PROJECT_FEATURES_MAX_LIMIT}`);
    return ({ params, query }): GetProjectFeaturesResponse | typeof notFound => {
      const project = projectBySlug.get(params.slug);
      if (project === undefined) return notFound;
      const limit = query.limit;
      const features = firstRows(featuresOf.all(project.id), limit);
      return {
        kind: "project_features",
        id: project.id,
        project: { id: project.id, slug: project.slug, name: project.name },
        limit,
        feature_count: project.feature_count,
        features: features.map((row) => ({ ...row, chain_ids: JSON.parse(row.chain_ids) as string[] })),
      };
    };
  },
});
