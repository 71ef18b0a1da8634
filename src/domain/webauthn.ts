// What the passkey ceremonies (passkeys.ts) stand on: the relying party of AUTH_URL, a passkey as
// pages, tokens (amr) and the export show it, its name's rules, and reading the challenge a
// WebAuthn response answers.
import { createHash } from "node:crypto";
import { isIP } from "node:net";
import { invalidRequest } from "../errors.js";
import type { PasskeyRecord, Store } from "../store/port.js";

/**
 * @simplewebauthn/server (domain/passkeys.ts), loaded at its first use; a node loads it before it
 * listens (node.ts). Its import is about a third of a second, which every `sigil` command paid.
 */
let library: Promise<typeof import("@simplewebauthn/server")> | undefined;
export const webauthnLibrary = () => (library ??= import("@simplewebauthn/server"));

const MAX_NAME = 64;

export interface RelyingParty {
  id: string;
  origin: string;
}

/** The relying party of AUTH_URL, or null when passkeys cannot work there (an IP address, plain http on a name). */
export function relyingParty(authUrl: string): RelyingParty | null {
  const u = new URL(authUrl);
  const host = u.hostname.replace(/^\[|\]$/g, "");
  if (isIP(host)) return null;
  const local = host === "localhost" || host.endsWith(".localhost");
  if (u.protocol !== "https:" && !(u.protocol === "http:" && local)) return null;
  return { id: host, origin: u.origin };
}

/** A passkey as the pages and the export show it (no key material). */
export interface PasskeyView {
  id: string;
  name: string;
  createdAt: number;
  lastUsedAt?: number;
  synced: boolean;
}

export const viewOf = (p: PasskeyRecord): PasskeyView => ({
  id: p.id,
  name: p.name,
  createdAt: p.createdAt,
  ...(p.lastUsedAt !== undefined ? { lastUsedAt: p.lastUsedAt } : {}),
  synced: p.deviceType === "multiDevice" || p.backedUp,
});

/**
 * RFC 8176 amr of a passkey sign-in: "user" (user verification is required) and "hwk" for a key
 * bound to one device (WebAuthn backup eligibility off: a security key, a platform authenticator
 * that does not sync) or "swk" for a synced passkey (backup eligible or backed up: the private key
 * is copied between devices through a cloud account, so it is not hardware-bound).
 */
export function amrOf(p: { deviceType: string; backedUp: boolean }): string[] {
  return [p.deviceType === "multiDevice" || p.backedUp ? "swk" : "hwk", "user"];
}

/** A user's passkeys as the account export lists them (no public key, no counter). */
export async function passkeysForExport(store: Store, userId: string): Promise<Array<Record<string, unknown>>> {
  const iso = (ms: number | undefined) => (ms === undefined ? null : new Date(ms).toISOString());
  return (await store.passkeys.listForUser(userId)).map((p) => ({
    id: p.id,
    name: p.name,
    created_at: iso(p.createdAt),
    last_used_at: iso(p.lastUsedAt),
    synced: viewOf(p).synced,
    transports: p.transports ?? [],
  }));
}

/**
 * The store key of a sign-in challenge: the challenge and a hash of the asking browser's cookie
 * value (the value itself is never stored). 256 random bits need no key, only a one-way hash.
 */
export function boundKey(challenge: string, browser: string): string {
  return `${challenge}.${createHash("sha256").update(browser).digest("base64url")}`;
}

export const cannotVerify = () => invalidRequest("err.passkeyUnverified");
export const unknownPasskey = () => invalidRequest("err.passkeyNotKnown");

/** Reads the challenge a WebAuthn response answers (from its clientDataJSON), or throws 400. */
export function challengeOf(response: { response?: { clientDataJSON?: unknown } }): string {
  const raw = response.response?.clientDataJSON;
  if (typeof raw !== "string" || raw.length > 4096) throw cannotVerify();
  try {
    const c = (JSON.parse(Buffer.from(raw, "base64url").toString("utf8")) as { challenge?: unknown }).challenge;
    if (typeof c === "string" && c.length > 0 && c.length <= 128) return c;
  } catch {
    /* below */
  }
  throw cannotVerify();
}

/** A passkey's name as given, trimmed; 400 when empty or longer than 64 characters. */
export function checkPasskeyName(raw: string): string {
  const name = raw.trim();
  if (name.length === 0 || [...name].length > MAX_NAME) throw invalidRequest("err.passkeyName");
  return name;
}
