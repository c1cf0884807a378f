// The internal fields a real curation pipeline carries (sources, provider ids, evidence, raw
// payloads, media, notes, ingestion time). The compiler must drop them all; the sample fills
// them on a share of records so that a leak would show up in the compiled file.
import { DAY, HOUR, iso, type Plan } from "./plan.ts";
import type { Rng } from "./_prng.ts";

export interface InternalFields {
  sources?: { url: string; title?: string; retrieved_at?: string }[];
  provider_ids?: Record<string, string>;
  evidence?: unknown[];
  raw?: unknown;
  media?: unknown[];
  curator_notes?: string;
  ingested_at?: string;
}

const PUBLISHERS = ["ledgerwire.example", "blockdesk.example", "chainpost.example", "tokenbeat.example"] as const;
const PROVIDERS = ["market_feed", "tvl_feed", "registry", "social_graph", "filings"] as const;
const NOTES = [
  "Checked against the project's own announcement.",
  "Two independent sources agree; provider figure rounded.",
  "Awaiting a second reviewer for the older entries.",
  "Provider series renamed last quarter; mapping re-confirmed.",
] as const;

/**
 * Internal fields for one record, present with probability `share`; `key` names the record in
 * URLs and provider ids (a slug or an id).
 */
export function internalFields(rng: Rng, plan: Plan, key: string, share = 0.35): InternalFields {
  if (!rng.chance(share)) return {};
  const retrieved = plan.asOf - rng.int(1, 90 * 24) * HOUR;
  const fields: InternalFields = {
    sources: [
      {
        url: `https://${rng.pick(PUBLISHERS)}/articles/${key}-${rng.int(1000, 9999)}`,
        title: `Coverage of ${key}`,
        retrieved_at: iso(retrieved),
      },
    ],
    ingested_at: iso(retrieved + rng.int(1, 120) * 60_000),
  };
  if (rng.chance(0.6)) {
    const provider = rng.pick(PROVIDERS);
    fields.provider_ids = { [provider]: `${provider.slice(0, 3)}-${rng.uint32().toString(36)}` };
  }
  if (rng.chance(0.4)) {
    fields.evidence = [{ kind: "snapshot", captured_at: iso(retrieved - rng.int(1, 10) * DAY), hash: rng.uint32().toString(16) }];
  }
  if (rng.chance(0.3)) {
    fields.raw = { provider_payload: { key, score: rng.float(0, 1, 4), flags: ["imported", "normalised"] } };
  }
  if (rng.chance(0.3)) {
    fields.media = [{ type: "logo", url: `https://cdn.media.example/${key}.png`, width: 256, height: 256 }];
  }
  if (rng.chance(0.3)) fields.curator_notes = rng.pick(NOTES);
  return fields;
}
