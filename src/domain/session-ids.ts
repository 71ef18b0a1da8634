// How a page session is named outside the store (docs/events.md#back-channel-logout).
import { keyedHash } from "./secrets.js";

/**
 * A keyed hash of the session's id, so that the id itself (what the session cookie carries) never
 * appears in a page, a file or a token: the pages' sessions list and the export show it, and it is
 * the `sid` of ID tokens and logout tokens. Not a secret: it opens nothing.
 */
export function publicSessionId(secret: string, sid: string): string {
  return keyedHash(secret, "sigil session", sid).slice(0, 32);
}
