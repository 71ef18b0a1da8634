// Shorthands for the grant tests (docs/http-api.md#refresh-tokens): a code with offline_access,
// refresh, revoke and introspect requests, and public clients registered on /developers.
import { http, type TestResponse } from "./http.js";
import { PageClient, authorize, pkce, registerApp, token, type TestApp } from "./pages.js";

const form = { "content-type": "application/x-www-form-urlencoded" };

/**
 * The scope that gets refresh tokens: offline_access is an OpenID Connect scope, so with openid
 * (a request without openid is plain OAuth and gets §3's answer, without a refresh token).
 */
export const OFFLINE = "openid profile offline_access";

/** The keys of a token answer, without the ID token that an openid grant adds once keys are wired. */
export const answerKeys = (json: Record<string, unknown>) =>
  Object.keys(json)
    .filter((k) => k !== "id_token")
    .sort();

/** POST a form to a token-family endpoint. */
export function postForm(
  base: string,
  path: "/token" | "/revoke" | "/introspect",
  fields: Record<string, string>,
  headers: Record<string, string> = {},
): Promise<TestResponse> {
  return http(base, path, {
    method: "POST",
    headers: { ...form, ...headers },
    body: new URLSearchParams(fields).toString(),
  });
}

/** Client credentials as form fields: a public client sends its client_id alone. */
export const creds = (app: { clientId: string; clientSecret?: string | undefined }) => ({
  client_id: app.clientId,
  ...(app.clientSecret !== undefined ? { client_secret: app.clientSecret } : {}),
});

export interface Pair {
  access: string;
  refresh: string;
  json: any;
}

/** The person allows the app with `scope` (PKCE always), and the app trades the code: the token response. */
export async function grant(
  base: string,
  person: PageClient,
  app: { clientId: string; clientSecret?: string | undefined; redirectUri: string },
  scope = OFFLINE,
): Promise<TestResponse> {
  const p = pkce();
  const landed = await authorize(person, {
    client_id: app.clientId,
    redirect_uri: app.redirectUri,
    response_type: "code", // required by OpenID Connect
    scope,
    state: "st",
    code_challenge: p.challenge,
    code_challenge_method: "S256",
  });
  return token(base, {
    grant_type: "authorization_code",
    code: landed.searchParams.get("code")!,
    redirect_uri: app.redirectUri,
    code_verifier: p.verifier,
    ...creds(app),
  });
}

/** A grant with offline_access that must succeed: its access and refresh token. */
export async function offlinePair(
  base: string,
  person: PageClient,
  app: { clientId: string; clientSecret?: string | undefined; redirectUri: string },
): Promise<Pair> {
  const r = await grant(base, person, app);
  if (r.status !== 200 || typeof r.json.refresh_token !== "string") throw new Error(`grant: ${r.status} ${r.text}`);
  return { access: r.json.access_token, refresh: r.json.refresh_token, json: r.json };
}

export function refresh(
  base: string,
  app: { clientId: string; clientSecret?: string | undefined },
  refreshToken: string,
  extra: Record<string, string> = {},
): Promise<TestResponse> {
  return postForm(base, "/token", {
    grant_type: "refresh_token",
    refresh_token: refreshToken,
    ...creds(app),
    ...extra,
  });
}

export interface PublicApp {
  clientId: string;
  clientSecret?: undefined;
  redirectUri: string;
}

/** Registers a public client on /developers (the "browser or mobile app" choice). */
export async function registerPublicApp(
  dev: PageClient,
  redirectUris: string[] = ["https://spa.example/cb"],
  name = "Browser App",
): Promise<PublicApp & { page: string }> {
  const r = await dev.submit("/developers", "/developers", {
    name,
    redirect_uri: redirectUris.join("\n"),
    client_type: "public",
  });
  if (r.status !== 201) throw new Error(`register failed: ${r.status} ${r.text.slice(0, 500)}`);
  const clientId = /class="client-id">([^<]+)</.exec(r.text)![1]!;
  return { clientId, redirectUri: redirectUris[0]!, page: r.text };
}

/** A developer, a confidential app, another app, and a person, on one node. */
export async function people(
  base: string,
): Promise<{ app: TestApp; other: TestApp; alice: PageClient; dev: PageClient }> {
  const dev = new PageClient(base);
  await dev.signUp("devon");
  const app = await registerApp(dev, ["https://app.example/cb"]);
  const other = await registerApp(dev, ["https://other.example/cb"], "Other");
  const alice = new PageClient(base);
  await alice.signUp("alice", "password123", "Alice");
  return { app, other, alice, dev };
}
