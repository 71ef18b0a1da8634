// Users' sockets in tests (docs/realtime.md#users-sockets): an app registered on /developers, a
// person who signs in to it with openid-client (discovery, PKCE, nonce; the person allows on the
// consent page), and a socket.io-client socket opened with the access token.
import * as client from "openid-client";
import type { EndedEvent } from "../../src/protocol.js";
import { channelClient, type ChannelClient } from "./channel.js";
import { http, type TestResponse } from "./http.js";
import type { TestNode } from "./nodes.js";
import { PageClient, authorize, basic, person, registerApp, type TestApp } from "./pages.js";

/** The redirect URL the apps of these helpers register (nothing listens there: authorize() stops at it). */
export const REDIRECT = "http://127.0.0.1:8765/callback";

/** An app registered on `node` by a developer, `dev` (signed in, its owner). */
export async function liveApp(node: TestNode): Promise<TestApp & { dev: PageClient }> {
  const dev = new PageClient(node.url);
  await dev.signUp("devon");
  return { ...(await registerApp(dev, [REDIRECT], "Live App")), dev };
}

export interface SignedIn {
  /** The person's browser (signed in to Sigil on the node). */
  c: PageClient;
  sub: string;
  accessToken: string;
  refreshToken: string | undefined;
}

/** `username` signs up on `node` and signs in to `app` with openid-client, asking for `scope`. */
export async function signInTo(node: TestNode, app: TestApp, username: string, scope: string): Promise<SignedIn> {
  const { c } = await person(node, username);
  return { c, ...(await tokensFor(node, app, c, scope)) };
}

/** The app as an openid-client relying party of `node` (discovery; Basic client authentication). */
export function rpOf(node: TestNode, app: TestApp): Promise<client.Configuration> {
  return client.discovery(new URL(node.url), app.clientId, undefined, client.ClientSecretBasic(app.clientSecret), {
    execute: [client.allowInsecureRequests],
  });
}

/** A signed-in person goes through the app's sign-in again: new tokens. */
export async function tokensFor(node: TestNode, app: TestApp, c: PageClient, scope: string) {
  const tokens = await rpSignIn(await rpOf(node, app), c, scope);
  return { sub: tokens.claims()!.sub, accessToken: tokens.access_token, refreshToken: tokens.refresh_token };
}

/**
 * The app signs the person (a signed-in browser) in with openid-client: PKCE, state, nonce, the
 * consent allowed on Sigil's page; the ID token validated. The token response.
 */
export async function rpSignIn(config: client.Configuration, c: PageClient, scope: string) {
  const verifier = client.randomPKCECodeVerifier();
  const state = client.randomState();
  const nonce = client.randomNonce();
  const url = client.buildAuthorizationUrl(config, {
    redirect_uri: REDIRECT,
    scope,
    state,
    nonce,
    code_challenge: await client.calculatePKCECodeChallenge(verifier),
    code_challenge_method: "S256",
  });
  const landed = await authorize(c, Object.fromEntries(url.searchParams));
  return client.authorizationCodeGrant(config, landed, {
    pkceCodeVerifier: verifier,
    expectedState: state,
    expectedNonce: nonce,
    idTokenExpected: true,
  });
}

export interface UserSocket {
  c: ChannelClient;
  /** The `ended` events it got. */
  ended: EndedEvent[];
  /** Every event it got, by name, in order. */
  names: string[];
}

/** A socket opened with `auth: {access_token}` (and `extra` beside it); not waited for. */
export function userSocket(node: TestNode, accessToken: unknown, extra: object = {}): UserSocket {
  const c = channelClient(node.url, { auth: (cb) => cb({ access_token: accessToken, ...extra }) });
  const s: UserSocket = { c, ended: [], names: [] };
  c.socket.on("ended", (e) => s.ended.push(e));
  c.socket.onAny((name: string) => s.names.push(name));
  return s;
}

/** As userSocket, once it is ready. */
export async function readyUserSocket(node: TestNode, accessToken: string, extra: object = {}): Promise<UserSocket> {
  const s = userSocket(node, accessToken, extra);
  await s.c.waitReady();
  return s;
}

/** POST /realtime/publish as the app's server (HTTP Basic with its client credentials). */
export function publishAsApp(node: TestNode, app: TestApp, body: unknown): Promise<TestResponse> {
  return http(node.url, "/realtime/publish", {
    method: "POST",
    headers: { "content-type": "application/json", authorization: basic(app.clientId, app.clientSecret) },
    body: JSON.stringify(body),
  });
}

/** POST /revoke as the app (RFC 7009). */
export function revokeAsApp(node: TestNode, app: TestApp, token: string): Promise<TestResponse> {
  return http(node.url, "/revoke", {
    method: "POST",
    headers: {
      "content-type": "application/x-www-form-urlencoded",
      authorization: basic(app.clientId, app.clientSecret),
    },
    body: new URLSearchParams({ token }).toString(),
  });
}
