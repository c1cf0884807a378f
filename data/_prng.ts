// Deterministic pseudo-randomness. Every record draws from its own stream, seeded from a
// stream name and the record's index, so any record can be regenerated on its own (people
// regenerate a project's funding rounds to reference them) without holding earlier records.

/** The sample's fixed seed: the same content for every --as-of, only the dates move. */
const SAMPLE_SEED = 0x5eedc31;

/** A bijection on 32-bit integers (lowbias32): distinct inputs always give distinct outputs. */
export function mix32(value: number): number {
  let x = value >>> 0;
  x ^= x >>> 16;
  x = Math.imul(x, 0x7feb352d);
  x ^= x >>> 15;
  x = Math.imul(x, 0x846ca68b);
  x ^= x >>> 16;
  return x >>> 0;
}

const streamSeeds = new Map<string, number>();

/** FNV-1a of the stream name, mixed with the sample seed; cached per name. */
function streamSeed(stream: string): number {
  let seed = streamSeeds.get(stream);
  if (seed === undefined) {
    let h = 0x811c9dc5 ^ SAMPLE_SEED;
    for (let i = 0; i < stream.length; i += 1) h = Math.imul(h ^ stream.charCodeAt(i), 0x01000193);
    seed = mix32(h);
    streamSeeds.set(stream, seed);
  }
  return seed;
}

/** One record's pseudo-random stream (a 32-bit counter hashed by mix32). */
export class Rng {
  #state: number;

  constructor(seed: number) {
    this.#state = seed;
  }

  uint32(): number {
    this.#state = (this.#state + 0x9e3779b9) >>> 0;
    return mix32(this.#state);
  }

  /** A float in [0, 1). */
  next(): number {
    return this.uint32() / 4294967296;
  }

  /** An integer in [min, max], both inclusive. */
  int(min: number, max: number): number {
    return min + Math.floor(this.next() * (max - min + 1));
  }

  float(min: number, max: number, decimals = 2): number {
    return round(min + this.next() * (max - min), decimals);
  }

  chance(probability: number): boolean {
    return this.next() < probability;
  }

  pick<T>(items: readonly T[]): T {
    return items[Math.floor(this.next() * items.length)]!;
  }

  /** `count` distinct items in random order (all of them when count >= length). */
  sample<T>(items: readonly T[], count: number): T[] {
    const copy = items.slice();
    const take = Math.min(count, copy.length);
    for (let i = 0; i < take; i += 1) {
      const j = i + Math.floor(this.next() * (copy.length - i));
      [copy[i], copy[j]] = [copy[j]!, copy[i]!];
    }
    return copy.slice(0, take);
  }
}

export function rngFor(stream: string, index: number): Rng {
  return new Rng(mix32(streamSeed(stream) ^ mix32(index)));
}

export function round(value: number, decimals: number): number {
  const factor = 10 ** decimals;
  return Math.round(value * factor) / factor;
}

const hex = (value: number, length: number): string => (value >>> 0).toString(16).padStart(length, "0").slice(-length);

/**
 * A version-4 UUID drawn from `rng`; its last 32 bits are a bijection of `index`, so two
 * records of one family can never share an id, whatever the random bits.
 */
export function uuidFor(rng: Rng, index: number): string {
  const a = rng.uint32();
  const b = rng.uint32();
  const c = rng.uint32();
  const unique = mix32(index ^ 0x51ed270b);
  return [
    hex(a, 8),
    hex(b >>> 16, 4),
    `4${hex(b & 0xfff, 3)}`,
    `${(8 + (c >>> 30)).toString(16)}${hex((c >>> 18) & 0xfff, 3)}`,
    `${hex(c & 0xffff, 4)}${hex(unique, 8)}`,
  ].join("-");
}
