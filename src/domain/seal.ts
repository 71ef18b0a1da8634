// Sealing small secrets under SECRET (the signing keys' private parts, TOTP keys): AES-256-GCM under a key
// HKDF derives from SECRET for one purpose, with associated data binding the sealed value to what
// it belongs to (a user id). iv (12) ‖ ciphertext ‖ tag (16), base64url.
import { createCipheriv, createDecipheriv, hkdfSync, randomBytes } from "node:crypto";

export function sealingKey(secret: string, purpose: string): Buffer {
  return Buffer.from(hkdfSync("sha256", secret, "sigil", purpose, 32));
}

/** Seals a string (as UTF-8) or bytes. */
export function seal(key: Buffer, plaintext: string | Buffer, aad: string): string {
  const iv = randomBytes(12);
  const cipher = createCipheriv("aes-256-gcm", key, iv);
  cipher.setAAD(Buffer.from(aad));
  const data = typeof plaintext === "string" ? Buffer.from(plaintext, "utf8") : plaintext;
  return Buffer.concat([iv, cipher.update(data), cipher.final(), cipher.getAuthTag()]).toString("base64url");
}

/** The sealed bytes, or null when the value was not sealed with this key for this aad (or is malformed). */
export function unsealBytes(key: Buffer, sealed: string, aad: string): Buffer | null {
  try {
    const raw = Buffer.from(sealed, "base64url");
    if (raw.length < 28) return null;
    const decipher = createDecipheriv("aes-256-gcm", key, raw.subarray(0, 12));
    decipher.setAAD(Buffer.from(aad));
    decipher.setAuthTag(raw.subarray(raw.length - 16));
    return Buffer.concat([decipher.update(raw.subarray(12, raw.length - 16)), decipher.final()]);
  } catch {
    return null;
  }
}

/** The sealed string, or null (as unsealBytes). */
export function unseal(key: Buffer, sealed: string, aad: string): string | null {
  const bytes = unsealBytes(key, sealed, aad);
  return bytes && bytes.length > 0 ? bytes.toString("utf8") : null;
}
