// Redirect URL rules (docs/http-api.md#sign-in-with-sigil, docs/http-api.md#pages; RFC 8252 §7.3 for loopback).

import { message, type MessageRef } from "../errors.js";

const LOOPBACK = new Set(["127.0.0.1", "[::1]"]);

export function isLoopback(u: URL): boolean {
  return LOOPBACK.has(u.hostname);
}

/** Why a URL cannot be registered, or undefined when it can. */
export function redirectUriProblem(raw: string): MessageRef | undefined {
  let u: URL;
  try {
    u = new URL(raw);
  } catch {
    return message("err.notAbsolute", { url: raw.slice(0, 100) });
  }
  if (raw.length > 2000) return message("err.redirectLength");
  if (raw.includes("#")) return message("err.redirectFragment");
  if (u.username || u.password) return message("err.redirectUserinfo");
  if (u.protocol === "https:") return undefined;
  if (u.protocol === "http:" && isLoopback(u)) return undefined;
  return message("err.redirectScheme");
}

/** Whether `given` matches a registered URL: exact string equality, save the loopback port. */
export function redirectUriMatches(registered: string, given: string): boolean {
  if (registered === given) return true;
  let r: URL, g: URL;
  try {
    r = new URL(registered);
    g = new URL(given);
  } catch {
    return false;
  }
  if (!isLoopback(r) || r.protocol !== "http:" || g.protocol !== "http:" || g.hostname !== r.hostname) return false;
  // Same URL once the port is set aside; the given string must be what it parses to, so that
  // no alternative spelling sneaks past string equality.
  const withoutPort = (s: string, u: URL) => s.replace(`${u.hostname}:${u.port}`, u.hostname);
  return withoutPort(given, g) === withoutPort(registered, r);
}
