// 18. GET /v1/x-accounts/{id}: the X account reference; handles, text and metrics never leave the compiler.
import { z } from "zod";
import { notFound } from "../errors.ts";
import { noQuery, pathSlug, xAccountReference } from "./_schemas.ts";
import { defineOperation } from "./operation.ts";

export const getXAccountRequest = z.strictObject({
  params: z.strictObject({ id: pathSlug }),
  query: noQuery,
});

export const getXAccountResponse = xAccountReference;
export type GetXAccountResponse = z.output<typeof getXAccountResponse>;

interface XAccountRow { id: string; linked_type: "project" | "person" | null; linked_id: string | null }

export const getXAccount = defineOperation({
  id: "get_x_account",
  request: getXAccountRequest,
  response: getXAccountResponse,
  keepAnswers: {},
  prepare({ snapshot }) {
    const accountById = snapshot.prepare<[string], XAccountRow>("SELECT id, linked_type, linked_id FROM x_accounts WHERE id = ?");
    return ({ params }): GetXAccountResponse | typeof notFound => {
      const row = accountById.get(params.id);
      if (row === undefined) return notFound;
      if (row.linked_type === null) return { type: "x_account", id: row.id };
      return { type: "x_account", id: row.id, linked_entity: { type: row.linked_type, id: row.linked_id! } };
    };
  },
});
