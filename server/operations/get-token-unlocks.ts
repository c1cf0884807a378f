// 21. GET /v1/tokens/{id}/unlocks: the unlocks of a token's served vesting schedules in the window
// from now to `days` ahead, by the unlock rule of snapshot/unlocks.ts (decision 31). The compiler
// fixed each schedule's steps and amounts (token_unlock_plans); a request only places its window.
import { z } from "zod";
import { ApiError, missingPart, notFound } from "../errors.ts";
import { isoDateTime } from "../../snapshot/iso-time.ts";
import { unlocksInWindow, type UnlockPlan } from "../../snapshot/unlocks.ts";
import { countQuery, dateTime, limitApplied, pathSlug, recordCount, tokenRef } from "./_schemas.ts";
import { freshUntil } from "./_freshness.ts";
import { defineOperation } from "./operation.ts";

export const TOKEN_UNLOCKS_DEFAULT_DAYS = 90;
const TOKEN_UNLOCKS_MAX_DAYS = 365;
/** Default and maximum (decision 31: `limit` defaults to its maximum). */
export const TOKEN_UNLOCKS_DEFAULT_LIMIT = 20;
const DAY_MS = 86_400_000;

export const getTokenUnlocksRequest = z.strictObject({
  params: z.strictObject({ id: pathSlug }),
  query: z.strictObject({
    days: countQuery(TOKEN_UNLOCKS_MAX_DAYS, TOKEN_UNLOCKS_DEFAULT_DAYS),
    limit: countQuery(TOKEN_UNLOCKS_DEFAULT_LIMIT, TOKEN_UNLOCKS_DEFAULT_LIMIT),
  }),
});

const unlock = z.strictObject({ allocation_bucket: z.string(), unlock_at: dateTime, amount_native: z.number() });

export const getTokenUnlocksResponse = z.strictObject({
  kind: z.literal("token_unlocks"),
  id: z.string(),
  token: tokenRef,
  as_of: dateTime,
  days: z.number().int().min(1).max(TOKEN_UNLOCKS_MAX_DAYS),
  limit: limitApplied(TOKEN_UNLOCKS_DEFAULT_LIMIT),
  window_start: dateTime,
  window_end: dateTime,
  unlock_count: recordCount,
  unlocks: z.array(unlock),
});
export type GetTokenUnlocksResponse = z.output<typeof getTokenUnlocksResponse>;

/** Decision 32: the token is served, its tokenomics are not. */
const noTokenomics = missingPart("token", "served tokenomics");

interface TokenRow { id: string; symbol: string; name: string; as_of: string | null }

/** Tokens whose row and plans are kept (each a few hundred bytes); then the cache starts again. */
const KEPT_TOKENS = 2_000;

export const getTokenUnlocks = defineOperation({
  id: "get_token_unlocks",
  request: getTokenUnlocksRequest,
  response: getTokenUnlocksResponse,
  missingParts: [noTokenomics],
  prepare({ snapshot, now }) {
    const tokenById = snapshot.prepare<[string], TokenRow>(`
      SELECT t.id AS id, t.symbol AS symbol, t.name AS name, k.as_of AS as_of
      FROM tokens t LEFT JOIN tokenomics k ON k.token_id = t.id WHERE t.id = ?`);
    const plansOf = snapshot.prepare<[string], UnlockPlan>(`
      SELECT allocation_bucket, cadence, start_ms, end_ms, tge_amount, cliff_ms, cliff_amount, first_step, step_count, step_amount
      FROM token_unlock_plans WHERE token_id = ? ORDER BY position`);
    // What the snapshot fixes about a token (its row, its plans, until when its tokenomics are
    // served) is read once: reading it was most of the operation's cost (two statements, ~40 µs of
    // ~80 µs in process at bench scale 91).
    const kept = new Map<string, { token: TokenRow; plans: UnlockPlan[]; servedUntil: number } | null>();
    const fixed = (id: string) => {
      let entry = kept.get(id);
      if (entry === undefined) {
        const token = tokenById.get(id);
        entry = token === undefined ? null : { token, plans: plansOf.all(token.id), servedUntil: freshUntil(token.as_of, "tokenomics") };
        if (kept.size >= KEPT_TOKENS) kept.clear();
        kept.set(id, entry);
      }
      return entry;
    };
    return ({ params, query }): GetTokenUnlocksResponse | ApiError => {
      const entry = fixed(params.id);
      if (entry === null) return notFound;
      const { token, plans, servedUntil } = entry;
      const at = now();
      // Tokenomics past their bound are not served (decision 14), nor are the unlocks computed from them.
      if (at > servedUntil) return noTokenomics;
      const end = at + query.days * DAY_MS;
      const { count, first } = unlocksInWindow(plans, at, end, query.limit);
      return {
        kind: "token_unlocks",
        id: token.id,
        token: { id: token.id, symbol: token.symbol, name: token.name },
        as_of: token.as_of!,
        days: query.days,
        limit: query.limit,
        window_start: isoDateTime(at),
        window_end: isoDateTime(end),
        unlock_count: count,
        unlocks: first.map((u) => ({ allocation_bucket: u.allocation_bucket, unlock_at: isoDateTime(u.unlock_ms), amount_native: u.amount_native })),
      };
    };
  },
});
