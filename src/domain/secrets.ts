// Keyed hashes and constant-time comparison, for answers and other secrets Sigil must verify
// without storing them in clear.
import {
  createHmac,
  createSecretKey,
  randomBytes,
  randomFillSync,
  randomInt,
  timingSafeEqual,
  type KeyObject,
} from "node:crypto";
import { Remembered } from "../remembered.js";

/** The secrets' keys, imported once: a string key is converted again on every createHmac. */
const hmacKeys = new Remembered<string, KeyObject>(16);

/** HMAC-SHA256 of the parts (joined with NUL, so no two different part lists collide), hex. */
export function keyedHash(secret: string, ...parts: string[]): string {
  const key = hmacKeys.get(secret, () => createSecretKey(Buffer.from(secret, "utf8")));
  return createHmac("sha256", key).update(parts.join("\0")).digest("hex");
}

/** Compares two hex digests in constant time (different lengths are simply unequal). */
export function sameDigest(a: string, b: string): boolean {
  const x = Buffer.from(a, "hex");
  const y = Buffer.from(b, "hex");
  return x.length === y.length && x.length > 0 && timingSafeEqual(x, y);
}

/**
 * Random bytes for tokens are drawn from the CSPRNG 4 KiB at a time, as node's crypto.randomUUID
 * does: one call per 128 tokens instead of one each (a /token for client credentials made one per
 * request). Each byte is handed out once; the pool never leaves this module.
 */
const pool = Buffer.alloc(4096);
let drawn = pool.length;

/** A random, URL-safe token of `bytes` random bytes. */
export function randomToken(bytes = 32): string {
  if (bytes > 256) return randomBytes(bytes).toString("base64url");
  if (drawn + bytes > pool.length) {
    randomFillSync(pool);
    drawn = 0;
  }
  const token = pool.toString("base64url", drawn, drawn + bytes);
  drawn += bytes;
  return token;
}

const ALPHANUMERIC = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789";

/**
 * A random id that people paste into command lines (client ids, CUSTOM TOKEN ids; docs/cli.md):
 * 22 base64url characters, as randomToken(16) makes, but the first is a letter or a digit, never
 * "-" (a command line reads "-Jfr…" as an option). 62 × 64^21 values: about 131.9 random bits.
 */
export function randomId(): string {
  return ALPHANUMERIC.charAt(randomInt(ALPHANUMERIC.length)) + randomBytes(16).toString("base64url").slice(0, 21);
}
