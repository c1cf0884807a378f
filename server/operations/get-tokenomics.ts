// 11. GET /v1/tokenomics/{id}: recently verified, high-confidence tokenomics fields of one token.
import { z } from "zod";
import { missingPart, notFound } from "../errors.ts";
import { dateTime, noQuery, pathSlug, tokenRef } from "./_schemas.ts";
import { freshUntil, isFresh } from "./_freshness.ts";
import { defineOperation } from "./operation.ts";

export const getTokenomicsRequest = z.strictObject({
  params: z.strictObject({ id: pathSlug }),
  query: noQuery,
});

const allocation = z.strictObject({ bucket: z.string(), percent_supply: z.number(), amount_native: z.number() });
const vestingSchedule = z.strictObject({
  allocation_bucket: z.string(),
  start_at: dateTime,
  cliff_at: dateTime.nullable(),
  end_at: dateTime,
  cadence: z.string(),
  percent_unlocked_at_tge: z.number(),
  amount_native: z.number(),
});
const utility = z.strictObject({ utility_type: z.string() });

export const getTokenomicsResponse = z.strictObject({
  kind: z.literal("tokenomics"),
  as_of: dateTime,
  token: tokenRef,
  profile: z.strictObject({ model_type: z.string().nullable() }),
  allocations: z.array(allocation),
  vesting_schedules: z.array(vestingSchedule),
  utilities: z.array(utility),
});
export type GetTokenomicsResponse = z.output<typeof getTokenomicsResponse>;

interface TokenomicsRow { as_of: string | null; id: string; symbol: string; name: string; model_type: string | null }

/** A served token without tokenomics, or whose oldest kept field is older than its bound (decision 32). */
const noFreshTokenomics = missingPart("token", "fresh tokenomics");

export const getTokenomics = defineOperation({
  id: "get_tokenomics",
  request: getTokenomicsRequest,
  response: getTokenomicsResponse,
  keepAnswers: { until: (data) => freshUntil(data.as_of, "tokenomics") },
  missingParts: [noFreshTokenomics],
  prepare({ snapshot, now }) {
    const tokenomicsOf = snapshot.prepare<[string], TokenomicsRow>(`
      SELECT k.as_of AS as_of, t.id AS id, t.symbol AS symbol, t.name AS name, k.model_type AS model_type
      FROM tokens t LEFT JOIN tokenomics k ON k.token_id = t.id WHERE t.id = ?`);
    const allocationsOf = snapshot.prepare<[string], z.output<typeof allocation>>(
      "SELECT bucket, percent_supply, amount_native FROM tokenomics_allocations WHERE token_id = ? ORDER BY position",
    );
    const vestingOf = snapshot.prepare<[string], z.output<typeof vestingSchedule>>(`
      SELECT allocation_bucket, start_at, cliff_at, end_at, cadence, percent_unlocked_at_tge, amount_native
      FROM tokenomics_vesting WHERE token_id = ? ORDER BY position`);
    const utilitiesOf = snapshot.prepare<[string], z.output<typeof utility>>(
      "SELECT utility_type FROM tokenomics_utilities WHERE token_id = ? ORDER BY position",
    );
    return ({ params }): GetTokenomicsResponse | typeof notFound => {
      const row = tokenomicsOf.get(params.id);
      if (row === undefined) return notFound;
      // as_of is the oldest verification kept: past the bound, some field is too old to serve.
      if (row.as_of === null || !isFresh(row.as_of, "tokenomics", now())) return noFreshTokenomics;
      return {
        kind: "tokenomics",
        as_of: row.as_of,
        token: { id: row.id, symbol: row.symbol, name: row.name },
        profile: { model_type: row.model_type },
        allocations: allocationsOf.all(row.id),
        vesting_schedules: vestingOf.all(row.id),
        utilities: utilitiesOf.all(row.id),
      };
    };
  },
});
