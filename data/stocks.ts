// stocks.jsonl: listed (or about to list) companies with a crypto angle. The first 36 IPO on a
// weekly ladder from 40 days after --as-of backwards, so the 30 most recent always cover every
// region and angle and include pre-IPO listings; the rest listed earlier.
import { cryptoAngles, stockRegions, type StockSource } from "../compiler/families/stocks/source.ts";
import { stockIdentity } from "./_identity.ts";
import { internalFields } from "./_internal.ts";
import { baseCounts, DAY, iso, curatedProminence, visibility, ymd, type Plan } from "./plan.ts";
import { rngFor } from "./_prng.ts";
import { symbolOf } from "./_names.ts";

type Region = (typeof stockRegions)[number];

const EXCHANGES: Record<Region, readonly string[]> = {
  us: ["NASDAQ", "NYSE"], hk: ["HKEX"], kr: ["KRX", "KOSDAQ"], jp: ["TSE"],
  tw: ["TWSE"], uk: ["LSE", "AIM"], au: ["ASX"], br: ["B3"],
};
const CURRENCIES: Record<Region, string> = { us: "USD", hk: "HKD", kr: "KRW", jp: "JPY", tw: "TWD", uk: "GBP", au: "AUD", br: "BRL" };

function ticker(region: Region, name: string, digits: number): string {
  const letters = symbolOf(name).slice(0, 4);
  switch (region) {
    case "hk": return `${String(digits % 10_000).padStart(4, "0")}.HK`;
    case "kr": return String(digits % 1_000_000).padStart(6, "0");
    case "jp": return `${String(digits % 10_000).padStart(4, "0")}.T`;
    case "tw": return `${String(digits % 10_000).padStart(4, "0")}.TW`;
    case "uk": return `${letters.slice(0, 3)}.L`;
    case "au": return `${letters.slice(0, 3)}.AX`;
    case "br": return `${letters}3`;
    default: return letters;
  }
}

export function* stockRecords(plan: Plan): Generator<StockSource> {
  for (let k = 0; k < plan.counts.stocks; k += 1) {
    const rng = rngFor("stock", k);
    const { name, slug } = stockIdentity(k);
    const region = stockRegions[k % stockRegions.length]!;
    const ipo = k < baseCounts.stocks ? plan.today + (40 - 7 * k) * DAY : plan.today - rng.int(260, 30 * 365) * DAY;
    const record: StockSource = {
      id: stockIdentity(k).id,
      slug,
      name,
      ticker: ticker(region, name, rng.int(1000, 999_999)),
      exchange: rng.pick(EXCHANGES[region]),
      region,
      crypto_angle: cryptoAngles[k % cryptoAngles.length]!,
      ipo_date: ymd(ipo),
      is_pre_ipo: ipo > plan.today,
      ...visibility("stocks", k),
      ...curatedProminence("stocks", k),
      score: rng.float(0, 100),
      currency: CURRENCIES[region],
      sector: rng.pick(["Financials", "Technology", "Energy", "Industrials"]),
      ...internalFields(rng, plan, slug, 0.3),
    };
    if (rng.chance(0.5)) {
      record.native_name = name.toUpperCase();
      record.market = { market_cap_usd: rng.int(50, 90_000) * 1e6, as_of: iso(plan.asOf - DAY) };
      record.treasury = { btc: rng.int(0, 20_000), eth: rng.int(0, 100_000) };
      record.description = `${name} is an invented listed company with a ${record.crypto_angle} angle.`;
      record.website = `https://${slug}.example`;
    }
    yield record;
  }
}
