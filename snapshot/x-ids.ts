// Opaque X account ids and handle search hashes (docs/architecture.md, "X accounts").
// Both keys are derived from the compile secret and neither is stored in the snapshot (decision 24):
// ids cannot be reversed and index entries cannot be confirmed by hashing guessed handles. The
// server derives the same search key from the same secret (cei serve --x-secret-file).
import { createHmac, createSecretKey } from "node:crypto";

const BASE32 = "abcdefghijklmnopqrstuvwxyz234567";

/** Lower-case, without surrounding whitespace and without a leading `@`. */
export function normaliseHandle(handle: string): string {
  return handle.trim().replace(/^@/, "").toLowerCase();
}

function hmac(key: string | Buffer, message: string): Buffer {
  return createHmac("sha256", key).update(message, "utf8").digest();
}

function base32(bytes: Buffer): string {
  let out = "";
  let buffer = 0;
  let bits = 0;
  for (const byte of bytes) {
    buffer = (buffer << 8) | byte;
    bits += 8;
    while (bits >= 5) {
      out += BASE32[(buffer >>> (bits - 5)) & 31];
      bits -= 5;
    }
    buffer &= (1 << bits) - 1;
  }
  if (bits > 0) out += BASE32[(buffer << (5 - bits)) & 31];
  return out;
}

let cachedSecret: string | undefined;
let cachedIdKey: Buffer | undefined;

function idKeyFor(secret: string): Buffer {
  if (cachedSecret !== secret || cachedIdKey === undefined) {
    cachedIdKey = hmac(secret, "cei/x-account-id/v1");
    cachedSecret = secret;
  }
  return cachedIdKey;
}

/** The key (hex) of x_handle_index's hashes: the compiler's and the server's, never stored. */
export function handleSearchKey(secret: string): string {
  return hmac(secret, "cei/x-handle-search/v1").toString("hex");
}

/** `xa_` + the first 26 base32 characters of HMAC(idKey, normalised handle). */
export function xAccountId(secret: string, handle: string): string {
  return "xa_" + base32(hmac(idKeyFor(secret), normaliseHandle(handle))).slice(0, 26);
}

/** hex(HMAC(searchKey, normalised handle)): the key of x_handle_index. */
export function handleSearchHash(searchKeyHex: string, handle: string): string {
  return handleSearchHasher(searchKeyHex)(handle);
}

/**
 * handleSearchHash with its key prepared once: a KeyObject spares each hash the key's import
 * (an HMAC from a Buffer key cost ~10 µs on Node 24, from a KeyObject ~2 µs).
 */
export function handleSearchHasher(searchKeyHex: string): (handle: string) => string {
  const key = createSecretKey(Buffer.from(searchKeyHex, "hex"));
  return (handle) => createHmac("sha256", key).update(normaliseHandle(handle), "utf8").digest("hex");
}
