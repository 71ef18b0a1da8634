// Shorthands for the OpenID Connect suites: a relying party's side of the code flow (authorize,
// trade the code, check the ID token against the JWKS), and ageing a browser's sign-in in the
// store so max_age can be tested without sleeping.
import { createLocalJWKSet, decodeProtectedHeader, jwtVerify, type JWTPayload } from "jose";
import type { Store } from "../../src/store/port.js";
import { http, type TestResponse } from "./http.js";
import { authorize, basic, token, type PageClient, type TestApp } from "./pages.js";

/** The JWKS of a node, as a key set jose verifies with. */
export async function jwksOf(base: string) {
  const r = await http(base, "/jwks");
  if (r.status !== 200) throw new Error(`GET /jwks: ${r.status}`);
  return { set: r.json as { keys: Array<Record<string, string>> }, keys: createLocalJWKSet(r.json) };
}

/** Verifies an ID token with the node's JWKS (issuer and audience checked); its claims and kid. */
export async function verifyIdToken(
  base: string,
  idToken: string,
  clientId: string,
): Promise<{ claims: JWTPayload & Record<string, unknown>; kid: string }> {
  const { keys } = await jwksOf(base);
  const { payload } = await jwtVerify(idToken, keys, { issuer: base, audience: clientId, algorithms: ["RS256"] });
  return { claims: payload as JWTPayload & Record<string, unknown>, kid: String(decodeProtectedHeader(idToken).kid) };
}

/** Trades a code (client_secret_basic). */
export function trade(
  base: string,
  app: TestApp,
  code: string,
  extra: Record<string, string> = {},
): Promise<TestResponse> {
  return token(
    base,
    { grant_type: "authorization_code", code, redirect_uri: app.redirectUri, ...extra },
    { authorization: basic(app.clientId, app.clientSecret) },
  );
}

/** Authorizes (allowing when asked) and trades the code: the token response. */
export async function signInWith(
  base: string,
  person: PageClient,
  app: TestApp,
  params: Record<string, string>,
): Promise<TestResponse> {
  const landed = await authorize(person, {
    client_id: app.clientId,
    redirect_uri: app.redirectUri,
    response_type: "code",
    ...params,
  });
  const code = landed.searchParams.get("code");
  if (!code) throw new Error(`no code: ${landed.href}`);
  return trade(base, app, code);
}

/** The session id inside the browser's signed express-session cookie. */
export function sessionId(person: PageClient): string {
  const raw = decodeURIComponent(person.cookies.get("sigil.sid") ?? "");
  const m = /^s:(.+)\.[^.]+$/.exec(raw);
  if (!m) throw new Error("not signed in");
  return m[1]!;
}

/** Moves the browser's sign-in `seconds` into the past, in the store (as if signed in long ago). */
export async function ageSignIn(store: Store, person: PageClient, seconds: number): Promise<void> {
  const sid = sessionId(person);
  const raw = await store.sessions.get(sid);
  if (!raw) throw new Error("no session in the store");
  const s = JSON.parse(raw) as { authTime?: number };
  s.authTime = (s.authTime ?? Math.floor(Date.now() / 1000)) - seconds;
  await store.sessions.set(sid, JSON.stringify(s), 3600);
}
