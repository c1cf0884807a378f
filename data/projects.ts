// projects.jsonl: identity, features, events, funding rounds, TVL series and trend observations.
import type { ProjectSource } from "../compiler/families/projects/source.ts";
import { hotTiers } from "../compiler/families/projects/source.ts";
import { projectIdentity } from "./_identity.ts";
import { internalFields } from "./_internal.ts";
import { CHAINS } from "./_names.ts";
import { DAY, HOUR, MINUTE, iso, curatedProminence, visibility, ymd, type Plan } from "./plan.ts";
import { rngFor, type Rng } from "./_prng.ts";
import { fundingRounds } from "./_rounds.ts";

type Feature = NonNullable<ProjectSource["features"]>[number];
type ProjectEvent = NonNullable<ProjectSource["events"]>[number];

const FEATURES = [
  ["spot_trading", "Spot Trading", "trading"], ["perpetuals", "Perpetual Futures", "trading"],
  ["lending_pool", "Lending Pools", "lending"], ["flash_loans", "Flash Loans", "lending"],
  ["liquid_staking", "Liquid Staking", "staking"], ["validator_market", "Validator Marketplace", "staking"],
  ["token_bridge", "Token Bridge", "bridge"], ["message_relay", "Message Relay", "bridge"],
  ["smart_wallet", "Smart Wallet", "wallet"], ["passkey_login", "Passkey Login", "wallet"],
  ["portfolio_dashboard", "Portfolio Dashboard", "analytics"], ["onchain_alerts", "On-chain Alerts", "analytics"],
  ["governance_portal", "Governance Portal", "governance"], ["delegation", "Vote Delegation", "governance"],
  ["merchant_checkout", "Merchant Checkout", "payments"], ["payroll_streams", "Payroll Streams", "payments"],
  ["nft_launchpad", "NFT Launchpad", "nft"], ["creator_royalties", "Creator Royalties", "nft"],
  ["attestations", "Attestations", "identity"], ["name_service", "Name Service", "identity"],
  ["yield_vaults", "Yield Vaults", "yield"], ["auto_compounder", "Auto-compounder", "yield"],
  ["price_feeds", "Price Feeds", "oracle"], ["randomness_beacon", "Randomness Beacon", "oracle"],
  ["intent_router", "Intent Router", "trading"],
] as const;

const EVENT_TYPES = [
  "mainnet_launch", "testnet_launch", "token_listing", "partnership", "audit_completed",
  "governance_vote", "protocol_upgrade", "airdrop", "exploit", "acquisition",
] as const;

/** Which records carry the lists an answer truncates at 20. */
const OVER_CAP = { features: 3, events: 5 } as const;

export function* projectRecords(plan: Plan): Generator<ProjectSource> {
  for (let k = 0; k < plan.counts.projects; k += 1) yield projectRecord(plan, k);
}

function projectRecord(plan: Plan, k: number): ProjectSource {
  const rng = rngFor("project", k);
  const { id, slug, name } = projectIdentity(k);
  const chains = rng.sample(CHAINS, rng.int(1, 3));
  const record: ProjectSource = {
    id,
    slug,
    name,
    ...visibility("projects", k),
    ...curatedProminence("projects", k),
    description: `${name} builds ${rng.pick(FEATURES)[1].toLowerCase()} for ${chains.join(", ")}.`,
    links: [{ kind: "website", url: `https://${slug}.example` }, { kind: "docs", url: `https://docs.${slug}.example` }],
    status: rng.pick(["live", "live", "live", "beta", "sunset"]),
    chains,
    ...internalFields(rng, plan, slug),
    features: features(plan, rng, k, slug, chains),
    events: events(plan, rng, k),
    funding: fundingRounds(plan, k).map((round) => ({
      id: round.id,
      round_type: round.round_type,
      amount_usd: round.amount_usd,
      announced_at: iso(round.announced),
      verified: round.verified,
      investors: round.investors,
      ...(rng.chance(0.3) ? { sources: [{ url: `https://${slug}.example/blog/${round.id}`, title: "Funding announcement" }] } : {}),
    })),
    tvl: tvl(plan, rng, k, slug),
    trend: trend(plan, rng, k),
  };
  return record;
}

function features(plan: Plan, rng: Rng, k: number, slug: string, chains: string[]): Feature[] {
  const count = k === OVER_CAP.features ? 28 : rng.int(0, 5) + (k < 40 ? 1 : 0);
  const picks = count <= FEATURES.length ? rng.sample(FEATURES, count) : Array.from({ length: count }, (_, j) => FEATURES[j % FEATURES.length]!);
  return picks.map(([catalogName, catalogDisplay, category], j) => {
    const version = j >= FEATURES.length ? `_v${Math.floor(j / FEATURES.length) + 1}` : "";
    const [featureName, displayName] = [catalogName + version, catalogDisplay + version.replace("_", " ")];
    const state = (k * 7 + j) % 9 === 4 ? "unreviewed" : (k * 7 + j) % 13 === 6 ? "rejected" : "reviewed";
    const path = featureName.replace(/_/g, "-");
    return {
      feature_id: `fea_${String(k + 1).padStart(4, "0")}_${String(j + 1).padStart(2, "0")}`,
      feature_name: featureName,
      display_name: displayName,
      category,
      status: rng.pick(["active", "active", "active", "active", "beta", "deprecated"]),
      primary_url: `https://${slug}.example/${path}`,
      docs_url: rng.chance(0.8) ? `https://docs.${slug}.example/${path}` : null,
      app_url: rng.chance(0.6) ? `https://app.${slug}.example/${path}` : null,
      chain_ids: rng.sample(chains, rng.int(1, chains.length)),
      last_verified_at: iso(plan.asOf - rng.int(2 * HOUR, 120 * DAY)),
      review_state: state,
      ...(rng.chance(0.2) ? { evidence: [{ kind: "screenshot", url: `https://cdn.media.example/${slug}/${path}.png` }] } : {}),
    };
  });
}

function events(plan: Plan, rng: Rng, k: number): ProjectEvent[] {
  const count = k === OVER_CAP.events ? 28 : rng.int(0, 4) + (k < 40 ? 1 : 0);
  return Array.from({ length: count }, (_, j) => {
    const type = rng.pick(EVENT_TYPES);
    return {
      id: `pev_${String(k + 1).padStart(4, "0")}_${String(j + 1).padStart(2, "0")}`,
      type,
      occurred_at: iso(plan.asOf - rng.int(HOUR, 700 * DAY)),
      verified: (k + j) % 6 !== 2,
      title: `${type.replace(/_/g, " ")} #${j + 1}`,
      ...(rng.chance(0.3) ? { description: "Announced on the project's official channels.", curator_notes: "Date confirmed." } : {}),
    };
  });
}

/**
 * Most projects map to a TVL series whose latest day is --as-of's date or the day before; a
 * few are conflicting, unmapped, inconsistent (latest observation from another series) or stale.
 */
function tvl(plan: Plan, rng: Rng, k: number, slug: string): ProjectSource["tvl"] {
  if (k % 5 === 4) return null;
  const seriesId = `tvl:${slug}`;
  const state = k % 17 === 8 ? "conflicting" : k % 19 === 14 ? "unmapped" : "confirmed";
  const latestDaysAgo = k % 13 === 10 ? rng.int(4, 9) : k % 2;
  const days = k < 60 ? 14 : 7;
  let value = rng.float(1e5, 5e9, 0);
  const observations = Array.from({ length: days }, (_, j) => {
    value = Math.max(0, Math.round(value * (1 + rng.float(-0.06, 0.06, 4))));
    const daysAgo = latestDaysAgo + (days - 1 - j);
    const inconsistent = k % 23 === 5 && j === days - 1;
    return { date: ymd(plan.today - daysAgo * DAY), tvl_usd: value, series_id: inconsistent ? `${seriesId}-v2` : seriesId };
  });
  return { mapping: { series_id: seriesId, state }, observations };
}

/**
 * Trend observations: the first 36 projects (and a quarter of the rest) have some, the latest
 * within the last three hours; every hot tier appears; a few projects' latest is over a day old.
 */
function trend(plan: Plan, rng: Rng, k: number): ProjectSource["trend"] {
  if (k >= 36 && k % 4 !== 0) return [];
  const tier = k < 36 ? hotTiers[k % hotTiers.length]! : rng.pick(hotTiers);
  const stale = k % 12 === 7;
  const floor = [70, 55, 40, 25, 10][hotTiers.indexOf(tier)]!;
  let observed = plan.asOf - (stale ? rng.int(26 * HOUR, 60 * HOUR) : rng.int(5 * MINUTE, 3 * HOUR));
  const count = rng.int(1, 3);
  const observations = [];
  for (let j = 0; j < count; j += 1) {
    observations.push({
      observed_at: iso(observed),
      hot_tier: j === 0 ? tier : rng.pick(hotTiers),
      score: rng.float(floor, floor + 30),
      ...(rng.chance(0.2) ? { raw: { mentions: rng.int(50, 5000), window: "1h" } } : {}),
    });
    observed -= rng.int(6 * HOUR, 20 * HOUR);
  }
  return observations.reverse();
}
