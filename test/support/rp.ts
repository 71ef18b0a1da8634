// Relying-party apps for the OpenID Connect library suites: an app's own HTTP server on a second
// loopback origin, and the person's trip from the app to Sigil and back (sign-in done, consent
// allowed or denied on Sigil's page), driven by cookie-keeping clients.
import { createServer, type RequestListener, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { http } from "./http.js";
import { authorize, type PageClient } from "./pages.js";
import type { TestResponse } from "./http.js";

export interface RpServer {
  url: string;
  close(): Promise<void>;
}

/** Serves `handler` on 127.0.0.1 and a free port: the app's origin. */
export async function serveApp(handler: RequestListener): Promise<RpServer> {
  const server: Server = createServer(handler);
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    close: () =>
      new Promise((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/** Sigil's discovery document, as an app's administrator reads it to fill in the app's settings. */
export async function discovery(base: string): Promise<Record<string, any>> {
  const r = await http(base, "/.well-known/openid-configuration");
  if (r.status !== 200) throw new Error(`discovery: ${r.status}`);
  return r.json as Record<string, any>;
}

/** The Location of a redirect, resolved against `base`. */
export function locationOf(r: TestResponse, base: string): URL {
  if (r.status < 300 || r.status >= 400 || typeof r.headers.location !== "string")
    throw new Error(`expected a redirect, got ${r.status} ${r.text.slice(0, 300)}`);
  return new URL(r.headers.location, base);
}

/**
 * The person, signed in to Sigil, follows the app's redirect to Sigil's authorization URL and
 * allows (or denies) on the consent page: the URL Sigil sends the browser back to.
 */
export function visitSigil(person: PageClient, authorizationUrl: URL, decision = "allow"): Promise<URL> {
  if (authorizationUrl.origin !== person.base) throw new Error(`not Sigil's origin: ${authorizationUrl.href}`);
  return authorize(person, Object.fromEntries(authorizationUrl.searchParams), decision);
}
