// The client credentials of /token, /revoke and /introspect (RFC 6749 §2.3.1): client_secret_basic
// or client_secret_post, never both; a public client sends its client_id alone ("none"). The domain
// checks them and throttles failures (domain/client-auth.ts).
import type { Request } from "express";
import type { ClientCredentials } from "../../domain/client-auth.js";
import { invalidRequest } from "../../errors.js";

function formDecode(s: string): string {
  try {
    return decodeURIComponent(s.replace(/\+/g, " "));
  } catch {
    throw invalidRequest("The Basic credentials are not properly encoded.");
  }
}

/** The credentials of the request; invalid_request when missing, malformed or given twice. */
export function readCredentials(req: Request, body: Record<string, unknown>): ClientCredentials {
  const auth = req.headers.authorization;
  const bodyId = typeof body.client_id === "string" ? body.client_id : undefined;
  const bodySecret = typeof body.client_secret === "string" ? body.client_secret : undefined;
  if (auth !== undefined) {
    const m = /^Basic +([A-Za-z0-9+/=]+) *$/i.exec(auth);
    if (!m) throw invalidRequest("The Authorization header must be Basic client credentials.");
    const decoded = Buffer.from(m[1]!, "base64").toString("utf8"); // the group is mandatory
    const i = decoded.indexOf(":");
    if (i < 0) throw invalidRequest("The Basic credentials must be client_id:client_secret.");
    if (bodySecret !== undefined)
      throw invalidRequest("Send the client credentials either as Basic or in the body, not both.");
    const clientId = formDecode(decoded.slice(0, i));
    if (bodyId !== undefined && bodyId !== clientId)
      throw invalidRequest("client_id differs from the Basic credentials.");
    return { clientId, clientSecret: formDecode(decoded.slice(i + 1)), basic: true };
  }
  if (!bodyId) throw invalidRequest("client_id is required.");
  return { clientId: bodyId, clientSecret: bodySecret || undefined, basic: false };
}
