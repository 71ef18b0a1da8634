// Keyed hashes and constant-time comparison, for answers and other secrets Sigil must verify
// without storing them in clear.
import { createHmac, randomBytes, timingSafeEqual } from "node:crypto";

/** HMAC-SHA256 of the parts (joined with NUL, so no two different part lists collide), hex. */
export function keyedHash(secret: string, ...parts: string[]): string {
  return createHmac("sha256", secret).update(parts.join("\0")).digest("hex");
}

/** Compares two hex digests in constant time (different lengths are simply unequal). */
export function sameDigest(a: string, b: string): boolean {
  const x = Buffer.from(a, "hex");
  const y = Buffer.from(b, "hex");
  return x.length === y.length && x.length > 0 && timingSafeEqual(x, y);
}

/** A random, URL-safe token of `bytes` random bytes. */
export function randomToken(bytes = 32): string {
  return randomBytes(bytes).toString("base64url");
}
