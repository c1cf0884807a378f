// tokens.jsonl: identity, the market observation that ranks the token, and tokenomics whose
// every field carries its own verification time and confidence.
import type { TokenSource } from "../compiler/families/tokens/source.ts";
import { isWrappedToken, projectIdentity, tokenIdentity } from "./_identity.ts";
import { internalFields } from "./_internal.ts";
import { DAY, HOUR, MINUTE, iso, curatedProminence, visibility, type Plan } from "./plan.ts";
import { rngFor, round, type Rng } from "./_prng.ts";

type Tokenomics = NonNullable<TokenSource["tokenomics"]>;

/** At scale 1, tokens of rank 233-240 have no market observation yet. */
const UNRANKED = { from: 232, to: 240 } as const;

const BUCKETS = ["team", "investors", "community", "ecosystem", "treasury", "public_sale", "liquidity", "advisors"] as const;
const CADENCES = ["monthly", "quarterly", "weekly", "daily", "linear", "yearly"] as const;
const UTILITIES = ["gas", "governance", "staking", "fee_discount", "collateral", "payments", "access", "burn"] as const;
const MODELS = ["fixed_supply", "inflationary", "deflationary", "elastic", "dual_token", "capped_emission"] as const;
/** Where sample tokens live: Ethereum, BNB Smart Chain, Polygon, Arbitrum One, Base (CAIP-2), and Solana. */
const EVM_CHAINS = ["eip155:1", "eip155:56", "eip155:137", "eip155:42161", "eip155:8453"] as const;
const SOLANA = "solana:5eykt4UsFv8P8NJdTREpY1vzqKqZKvdp";
const BASE58 = "123456789ABCDEFGHJKLMNPQRSTUVWXYZabcdefghijkmnopqrstuvwxyz";

export function* tokenRecords(plan: Plan): Generator<TokenSource> {
  for (let k = 0; k < plan.counts.tokens; k += 1) yield tokenRecord(plan, k);
}

function tokenRecord(plan: Plan, k: number): TokenSource {
  const rng = rngFor("token", k);
  const identity = tokenIdentity(k);
  const projectIndex = k / 3;
  return {
    ...identity,
    project_id: k >= 2 && k % 3 === 0 && projectIndex < plan.counts.projects ? projectIdentity(projectIndex).id : null,
    benchmark: k === 0 ? "btc" : k === 1 ? "eth" : null,
    ...contracts(k),
    ...visibility("tokens", k),
    ...curatedProminence("tokens", k),
    ...(rng.chance(0.3) ? { description: `${identity.name} (${identity.symbol}) is an invented sample asset.` } : {}),
    ...internalFields(rng, plan, identity.slug, 0.25),
    market: k >= UNRANKED.from && k < UNRANKED.to ? null : market(plan, rng, k),
    tokenomics: k % 3 === 2 ? null : tokenomics(plan, rng, k),
  };
}

/**
 * Two tokens in three are contracts on 1-3 chains (an EVM address on each EVM chain; on Solana a
 * base58 mint); the benchmarks are native coins. A stream of their own, so the rest of the
 * sample does not move when this changes.
 */
function contracts(k: number): Pick<TokenSource, "contracts"> {
  if (k < 2 || k % 3 === 1) return {};
  const rng = rngFor("token-contracts", k);
  const chains = rng.sample([...EVM_CHAINS, SOLANA], rng.int(1, 3));
  const chars = (alphabet: string, n: number) => Array.from({ length: n }, () => alphabet.charAt(rng.int(0, alphabet.length - 1))).join("");
  return {
    contracts: chains.map((chain_id) => ({ chain_id, address: chain_id === SOLANA ? chars(BASE58, 44) : `0x${chars("0123456789abcdef", 40)}` })),
  };
}

/**
 * Rank k+1, market cap falling with rank (rank 1 is the btc benchmark, rank 2 eth), observed
 * within the last hour; a few observations are hours old and so stale.
 */
function market(plan: Plan, rng: Rng, k: number): TokenSource["market"] {
  const rank = k + 1;
  const marketCap = Math.round(1.3e12 * rank ** -1.25 * 100) / 100;
  const price = k === 0 ? rng.float(40_000, 90_000) : k === 1 ? rng.float(1_500, 4_500) : round(10 ** rng.float(-4, 3.5, 3), 6);
  const stale = k % 37 === 19;
  return {
    observed_at: iso(plan.asOf - (stale ? rng.int(7 * HOUR, 40 * HOUR) : rng.int(MINUTE, 55 * MINUTE))),
    rank,
    price_usd: price,
    market_cap_usd: marketCap,
    volume_24h_usd: Math.round(marketCap * rng.float(0.005, 0.25, 4)),
    change_24h_pct: rng.float(-12, 12),
    change_7d_pct: rng.float(-30, 30),
    market_eligible: !isWrappedToken(k),
    ...(rng.chance(0.3) ? { provider_ids: { market_feed: `mf-${k + 1}` }, raw: { quote: "USD", venue_count: rng.int(3, 80) } } : {}),
  };
}

/** Field f of token k: fresh and confident, stale (verified > 180 days ago) or low-confidence. */
function verification(plan: Plan, rng: Rng, k: number, f: number) {
  const stale = (k + f) % 11 === 3;
  const lowConfidence = (k + 3 * f) % 13 === 5;
  return {
    verified_at: iso(plan.asOf - (stale ? rng.int(200, 500) * DAY : rng.int(HOUR, 45 * DAY))),
    confidence: lowConfidence ? rng.float(0.45, 0.79) : rng.float(0.9, 0.99),
    ...(rng.chance(0.15) ? { sources: [{ url: `https://docs.tokenomics.example/${k + 1}/${f}` }] } : {}),
  };
}

function tokenomics(plan: Plan, rng: Rng, k: number): Tokenomics {
  const supply = Math.round(10 ** rng.int(7, 10) * rng.float(1, 9.9));
  const buckets = rng.sample(BUCKETS, rng.int(4, 6));
  const shares = buckets.map(() => rng.float(1, 10));
  const total = shares.reduce((a, b) => a + b, 0);
  let remaining = 100;
  const allocations = buckets.map((bucket, i) => {
    const percent = i === buckets.length - 1 ? round(remaining, 2) : round((shares[i]! / total) * 100, 2);
    remaining -= percent;
    return { bucket, percent_supply: percent, amount_native: Math.round((supply * percent) / 100) };
  });
  const tge = plan.asOf - rng.int(30, 900) * DAY;
  const vesting = allocations.slice(0, rng.int(1, 3)).map((allocation) => {
    const cliffMonths = rng.pick([0, 6, 12]);
    return {
      allocation_bucket: allocation.bucket,
      start_at: iso(tge),
      cliff_at: cliffMonths === 0 ? null : iso(tge + cliffMonths * 30 * DAY),
      end_at: iso(tge + rng.pick([12, 24, 36, 48]) * 30 * DAY),
      cadence: rng.pick(CADENCES),
      percent_unlocked_at_tge: rng.pick([0, 0, 5, 10, 25]),
      amount_native: allocation.amount_native,
    };
  });
  const result: Tokenomics = {
    model_type: { value: rng.pick(MODELS), ...verification(plan, rng, k, 0) },
    allocations: { value: allocations, ...verification(plan, rng, k, 1) },
  };
  if (k % 7 !== 6) result.vesting_schedules = { value: vesting, ...verification(plan, rng, k, 2) };
  if (k % 5 !== 4) {
    result.utilities = { value: rng.sample(UTILITIES, rng.int(1, 3)).map((utility_type) => ({ utility_type })), ...verification(plan, rng, k, 3) };
  }
  if (rng.chance(0.3)) {
    result.supply = { total: supply, circulating: Math.round(supply * rng.float(0.1, 0.9)) };
    result.holders = { count: rng.int(1_000, 2_000_000), top10_pct: rng.float(10, 70) };
    result.unlocks = [{ at: iso(plan.asOf + rng.int(1, 90) * DAY), amount: Math.round(supply * 0.01) }];
    result.provenance = { compiled_by: "tokenomics-desk", reviewed: true };
  }
  return result;
}
