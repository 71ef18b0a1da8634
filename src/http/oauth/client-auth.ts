// The client credentials of /token, /revoke and /introspect (RFC 6749 §2.3.1): client_secret_basic
// or client_secret_post, never both; a public client sends its client_id alone ("none"). The domain
// checks them and throttles failures (domain/client-auth.ts).
import type { IncomingHttpHeaders } from "node:http";
import type { ClientCredentials } from "../../domain/client-auth.js";
import { invalidRequest } from "../../errors.js";

function formDecode(s: string): string {
  try {
    return decodeURIComponent(s.replace(/\+/g, " "));
  } catch {
    throw invalidRequest("err.basicEncoding");
  }
}

/** The credentials of the request; invalid_request when missing, malformed or given twice. */
export function readCredentials(
  req: { headers: IncomingHttpHeaders },
  body: Record<string, unknown>,
): ClientCredentials {
  const auth = req.headers.authorization;
  const bodyId = typeof body.client_id === "string" ? body.client_id : undefined;
  const bodySecret = typeof body.client_secret === "string" ? body.client_secret : undefined;
  if (auth !== undefined) {
    const m = /^Basic +([A-Za-z0-9+/=]+) *$/i.exec(auth);
    if (!m) throw invalidRequest("err.basicHeader");
    const decoded = Buffer.from(m[1]!, "base64").toString("utf8"); // the group is mandatory
    const i = decoded.indexOf(":");
    if (i < 0) throw invalidRequest("err.basicFormat");
    if (bodySecret !== undefined) throw invalidRequest("err.credentialsTwice");
    const clientId = formDecode(decoded.slice(0, i));
    if (bodyId !== undefined && bodyId !== clientId) throw invalidRequest("err.clientIdDiffers");
    return { clientId, clientSecret: formDecode(decoded.slice(i + 1)), basic: true };
  }
  if (!bodyId) throw invalidRequest("err.required", { name: "client_id" });
  return { clientId: bodyId, clientSecret: bodySecret || undefined, basic: false };
}
