// Key secrets and ids: random base62 text from crypto.randomBytes; only the sha256 is stored.
import { createHash, randomBytes } from "node:crypto";

const BASE62 = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz";

export const SECRET_PREFIX = "cei_";
const SECRET_RANDOM_CHARS = 40; // 40 × log2(62) ≈ 238 bits
const KEY_ID_RANDOM_CHARS = 16;
/** Characters of the secret shown in listings so that an operator can recognise a key. */
const DISPLAY_PREFIX_CHARS = SECRET_PREFIX.length + 6;

/** Uniform base62: bytes ≥ 248 are discarded so that `byte % 62` has no bias. */
export function randomBase62(length: number): string {
  let out = "";
  while (out.length < length) {
    for (const byte of randomBytes(length * 2)) {
      if (byte >= 248) continue;
      out += BASE62[byte % 62];
      if (out.length === length) break;
    }
  }
  return out;
}

export function newSecret(): string {
  return SECRET_PREFIX + randomBase62(SECRET_RANDOM_CHARS);
}

export function newKeyId(): string {
  return "key_" + randomBase62(KEY_ID_RANDOM_CHARS);
}

export function displayPrefix(secret: string): string {
  return secret.slice(0, DISPLAY_PREFIX_CHARS);
}

export function hashSecret(secret: string): string {
  return createHash("sha256").update(secret).digest("hex");
}
