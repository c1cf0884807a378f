// GET /v1/key (product decision 26): the calling key describes itself. No scope, no cost, no
// snapshot: the answer is the key's tier, scopes, balance and window as admitted.
import { z } from "zod";
import { scopes as allScopes, tiers } from "../policy.ts";
import { defineOperation } from "./operation.ts";
import { noQuery } from "./_schemas.ts";
import { meta, rateLimitInfo } from "../envelope.ts";

const getKeyRequest = z.strictObject({ params: z.strictObject({}), query: noQuery });

const getKeyResponse = z.strictObject({
  kind: z.literal("key_info"),
  id: z.string(),
  tier: z.enum(tiers),
  scopes: z.array(z.enum(allScopes)),
  credits_remaining: meta.shape.credits_remaining,
  rate_limit: rateLimitInfo,
});
type GetKeyResponse = z.output<typeof getKeyResponse>;

export const getKeyInfo = defineOperation({
  id: "get_key",
  request: getKeyRequest,
  response: getKeyResponse,
  prepare() {
    return (_request, caller): GetKeyResponse => ({
      kind: "key_info",
      id: caller.id,
      tier: caller.tier,
      // Policy order, as `cei keys list` shows them.
      scopes: allScopes.filter((scope) => caller.scopes.has(scope)),
      credits_remaining: caller.credits_remaining,
      rate_limit: caller.rate_limit,
    });
  },
});
