// Tokens as staging rows: one per token with its market observation, one per contract, one per
// tokenomics field, and one per allocation, vesting schedule and utility.
import type { Json, Staging } from "../define.ts";
import { bit, list, nullable } from "../_values.ts";
import { addressKey } from "./contracts.ts";

type Table = "s_tokens" | "s_token_contracts" | "s_tokenomics_fields" | "s_allocations" | "s_vesting" | "s_utilities";

/** A chain id's parts for ordering: its namespace, then its reference as a number when it is one (`eip155:56` before `eip155:137`). */
function chainOrder(chainId: string): [namespace: string, reference: number | null] {
  const colon = chainId.indexOf(":");
  const reference = chainId.slice(colon + 1);
  return [chainId.slice(0, colon), /^[0-9]{1,15}$/.test(reference) ? Number(reference) : null];
}

export const tokenStaging: Staging<Table> = {
  tables: {
    s_tokens: {
      line: "INTEGER", id: "TEXT", slug: "TEXT", symbol: "TEXT", name: "TEXT", project_id: "TEXT", benchmark: "TEXT",
      hidden: "INTEGER", deleted: "INTEGER", observed_at: "DATETIME", rank: "NUMERIC", price_usd: "NUMERIC",
      market_cap_usd: "NUMERIC", volume_24h_usd: "NUMERIC", change_24h_pct: "NUMERIC", change_7d_pct: "NUMERIC",
      market_eligible: "INTEGER", prominence: "INTEGER",
    },
    s_token_contracts: {
      token_line: "INTEGER", idx: "INTEGER", chain_id: "TEXT", namespace: "TEXT", reference_number: "INTEGER", address: "TEXT", address_key: "TEXT",
    },
    s_tokenomics_fields: { token_line: "INTEGER", field: "TEXT", verified_at: "DATETIME", confidence: "NUMERIC", model_type: "TEXT" },
    s_allocations: { token_line: "INTEGER", idx: "INTEGER", bucket: "TEXT", percent_supply: "NUMERIC", amount_native: "NUMERIC" },
    s_vesting: {
      token_line: "INTEGER", idx: "INTEGER", allocation_bucket: "TEXT", start_at: "DATETIME", cliff_at: "DATETIME",
      end_at: "DATETIME", cadence: "TEXT", percent_unlocked_at_tge: "NUMERIC", amount_native: "NUMERIC",
    },
    s_utilities: { token_line: "INTEGER", idx: "INTEGER", utility_type: "TEXT" },
  },
  rows(r, line, to) {
    const m = r.market as Json | null;
    to("s_tokens").push(line, r.id, r.slug, r.symbol, r.name, nullable(r.project_id), nullable(r.benchmark), bit(r.hidden), bit(r.deleted),
      nullable(m?.observed_at), nullable(m?.rank), nullable(m?.price_usd), nullable(m?.market_cap_usd), nullable(m?.volume_24h_usd),
      nullable(m?.change_24h_pct), nullable(m?.change_7d_pct), m === null ? 1 : bit(m.market_eligible), nullable(r.prominence));
    list(r.contracts).forEach((c, i) => {
      const chainId = c.chain_id as string;
      const address = c.address as string;
      to("s_token_contracts").push(line, i, chainId, ...chainOrder(chainId), address, addressKey(address));
    });
    const t = r.tokenomics as Record<string, Json | undefined> | null;
    if (t === null) return;
    for (const field of ["model_type", "allocations", "vesting_schedules", "utilities"] as const) {
      const f = t[field];
      if (f !== undefined) to("s_tokenomics_fields").push(line, field, f.verified_at, f.confidence, field === "model_type" ? f.value : null);
    }
    list(t.allocations?.value).forEach((a, i) => to("s_allocations").push(line, i, a.bucket, a.percent_supply, a.amount_native));
    list(t.vesting_schedules?.value).forEach((v, i) =>
      to("s_vesting").push(line, i, v.allocation_bucket, v.start_at, nullable(v.cliff_at), v.end_at, v.cadence,
        v.percent_unlocked_at_tge, v.amount_native));
    list(t.utilities?.value).forEach((u, i) => to("s_utilities").push(line, i, u.utility_type));
  },
  indexSql: [
    "CREATE INDEX s_tokens_id ON s_tokens (id);",
    "CREATE INDEX s_token_contracts_parent ON s_token_contracts (token_line);",
    "CREATE INDEX s_token_contracts_key ON s_token_contracts (address_key);",
    "CREATE INDEX s_tokenomics_parent ON s_tokenomics_fields (token_line);",
    "CREATE INDEX s_allocations_parent ON s_allocations (token_line);",
    "CREATE INDEX s_vesting_parent ON s_vesting (token_line);",
    "CREATE INDEX s_utilities_parent ON s_utilities (token_line);",
  ].join("\n"),
};
