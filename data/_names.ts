// Invented names. A base name is a chain of consonant-vowel syllables with an optional final
// consonant; such chains parse one way only, so the index → name map below is injective and
// slugs built from it never collide. Names that happen to spell a real brand get a "y" (a
// letter no syllable uses), which keeps the map injective.
import type { Rng } from "./_prng.ts";

const CONSONANTS = "bdfgklmnprstvz";
const VOWELS = "aeiou";
const CODAS = ["", "n", "r", "x", "s", "l"] as const;
const SYLLABLES: readonly string[] = [...CONSONANTS].flatMap((c) => [...VOWELS].map((v) => c + v));

const S = SYLLABLES.length; // 70
const TWO_SYLLABLE_NAMES = S * S * CODAS.length; // 29,400
const THREE_SYLLABLE_NAMES = S * S * S * CODAS.length; // 2,058,000

/** Real brands and projects a syllable chain could spell; never used as sample names. */
const REAL_NAMES = new Set([
  "kava", "nano", "tezos", "solana", "lido", "maker", "monero", "luna", "kusama", "gala", "pepe",
  "ronin", "mina", "gemini", "revolut", "lumen", "telos", "kadena", "sora", "venus", "radix",
  "nike", "lego", "sega", "suzuki", "kubota", "nikon", "lotus", "rolex", "zara", "tata", "vale",
  "natura", "saga", "base", "sonar", "serum", "kamino", "marinade", "degen", "pola", "toto",
  "nexo", "rari", "tiko", "dodo", "sushi", "buterin", "vitalik", "tokamak", "pika", "lisk", "fuse",
  "mobile", "sumo", "kikin", "rune", "bitso", "nuvo", "damus", "visa", "mastercard", "paypal",
]);

const capitalise = (word: string): string => word.charAt(0).toUpperCase() + word.slice(1);

/**
 * The `index`-th base name of a family (lower case). `salt` rotates the sequence per family so
 * that a project and a token of the same index get different names.
 */
export function baseName(index: number, salt: number): string {
  let word: string;
  if (index < TWO_SYLLABLE_NAMES) {
    // 7,919 is prime and does not divide 29,400: the affine map is a permutation.
    const n = (index * 7919 + salt) % TWO_SYLLABLE_NAMES;
    word = SYLLABLES[n % S]! + SYLLABLES[Math.floor(n / S) % S]! + CODAS[Math.floor(n / (S * S))]!;
  } else {
    const n = ((index - TWO_SYLLABLE_NAMES) * 104_729 + salt) % THREE_SYLLABLE_NAMES;
    word =
      SYLLABLES[n % S]! + SYLLABLES[Math.floor(n / S) % S]! + SYLLABLES[Math.floor(n / (S * S)) % S]! +
      CODAS[Math.floor(n / (S * S * S))]!;
  }
  return capitalise(REAL_NAMES.has(word) ? `${word}y` : word);
}

/** A person's name: not unique (slugs carry the index), so drawn freely. */
export function personName(rng: Rng): string {
  const first = rng.pick(SYLLABLES) + rng.pick(SYLLABLES) + rng.pick(["", "", "n", "l", "r", "s"]);
  const syllables = rng.chance(0.4) ? 3 : 2;
  let last = "";
  for (let i = 0; i < syllables; i += 1) last += rng.pick(SYLLABLES);
  last += rng.pick(CODAS);
  const safe = (word: string) => capitalise(REAL_NAMES.has(word) ? `${word}y` : word);
  return `${safe(first)} ${safe(last)}`;
}

export function slugify(text: string): string {
  return text
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, "-")
    .replace(/^-+|-+$/g, "");
}

/** A ticker-like symbol: the name's first letter and its following consonants, 3-5 letters. */
export function symbolOf(name: string): string {
  const letters = name.toUpperCase().replace(/[^A-Z]/g, "");
  const consonants = letters.slice(1).replace(/[AEIOU]/g, "");
  const symbol = (letters.charAt(0) + consonants).slice(0, 5);
  return symbol.length >= 3 ? symbol : letters.slice(0, 4);
}

export const PROJECT_WORDS = [
  "Protocol", "Finance", "Labs", "Network", "Swap", "Chain", "DAO", "Markets",
  "Vault", "Bridge", "Layer", "Pay", "Lend", "Oracle", "Games", "Studio",
] as const;

export const FUND_WORDS: Record<string, readonly string[]> = {
  vc: ["Ventures", "Capital", "Partners"],
  angel: ["Angels", "Angel Syndicate"],
  accelerator: ["Accelerator", "Founders Program"],
  launchpad: ["Launchpad", "Launch Pool"],
  cvc: ["Corporate Ventures", "Strategic Capital"],
  "family-office": ["Family Office", "Holdings"],
};

/** Themes the market talks about: narratives of the sample (generic terms, no brand). */
export const NARRATIVE_THEMES = [
  "Restaking", "Real-World Assets", "Liquid Staking", "Modular Data Availability", "Physical Infrastructure Networks",
  "Onchain AI Agents", "Stablecoin Payments", "Perpetual DEXs", "Onchain Gaming", "Bitcoin Layer 2s",
  "Intent-Based Trading", "Zero-Knowledge Rollups",
] as const;

export const STOCK_WORDS = ["Holdings", "Group", "Digital", "Technologies", "Mining", "Bank", "Securities", "Systems"] as const;

export const EVENT_WORDS = ["Summit", "Conf", "Hack Week", "Meetup", "Forum", "Days", "Builders Week", "Expo"] as const;

export const CITIES: readonly (readonly [string, string])[] = [
  ["Lisbon", "Portugal"], ["Seoul", "South Korea"], ["Singapore", "Singapore"], ["Denver", "United States"],
  ["Dubai", "United Arab Emirates"], ["Berlin", "Germany"], ["Paris", "France"], ["Tokyo", "Japan"],
  ["Buenos Aires", "Argentina"], ["Bangkok", "Thailand"], ["Istanbul", "Türkiye"], ["Toronto", "Canada"],
  ["London", "United Kingdom"], ["Prague", "Czechia"], ["Hong Kong", "Hong Kong"], ["Sydney", "Australia"],
  ["São Paulo", "Brazil"], ["Nairobi", "Kenya"], ["Austin", "United States"], ["Zug", "Switzerland"],
];

/** Invented chain identifiers, used for project chains and feature chain_ids. */
export const CHAINS = [
  "aurel-mainnet", "brisk-l2", "corvid", "dunefi-chain", "emberlink", "fathom-l2",
  "gilded-zk", "halcyon", "isotope-net", "jadeway",
] as const;
