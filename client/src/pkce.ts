// PKCE (RFC 7636) and `state` values, with Web Crypto only, so the same code runs in browsers
// and in Node 20 (globalThis.crypto).

/** base64url without padding (RFC 7636 appendix A). */
export function base64url(bytes: Uint8Array): string {
  let bin = "";
  for (const b of bytes) bin += String.fromCharCode(b);
  return btoa(bin).replace(/\+/g, "-").replace(/\//g, "_").replace(/=+$/, "");
}

/** n random bytes as base64url: 32 bytes → 43 characters, 256 bits. */
export function randomToken(bytes = 32): string {
  return base64url(crypto.getRandomValues(new Uint8Array(bytes)));
}

/** A fresh code_verifier: 43 characters of the unreserved set, 256 random bits (RFC 7636 §4.1). */
export function generateVerifier(): string {
  return randomToken(32);
}

/** A fresh `state`: 128 random bits, unguessable, so a forged callback cannot carry it. */
export function generateState(): string {
  return randomToken(16);
}

const VERIFIER = /^[A-Za-z0-9\-._~]{43,128}$/;

/** code_challenge for S256: BASE64URL(SHA-256(ASCII(verifier))) (RFC 7636 §4.2). */
export async function challengeFromVerifier(verifier: string): Promise<string> {
  if (!VERIFIER.test(verifier)) throw new RangeError("A PKCE verifier is 43 to 128 characters of A-Z a-z 0-9 - . _ ~");
  const digest = await crypto.subtle.digest("SHA-256", new TextEncoder().encode(verifier));
  return base64url(new Uint8Array(digest));
}
