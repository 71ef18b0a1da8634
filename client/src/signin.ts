// Sign-in with Sigil (docs/http-api.md#sign-in-with-sigil): OAuth 2.0 authorization code with `state`, PKCE S256 and
// the RFC 9207 `iss` check. Step 1 (authorize) and step 2 (callback) run wherever the app
// keeps its session — a browser page or a server; step 3 (exchangeCode, getUser) needs the
// client secret and so runs on the app's server only — save for a public client (a browser or
// mobile app registered without a secret), which trades the code, refreshes and revokes from the
// page itself: begin / complete (browser-signin.ts) do the whole round trip with sessionStorage.
//
// The verifier and the tokens never go into a URL: the authorize URL carries only the derived
// code_challenge, and the code travels back in the callback URL as OAuth requires.
import type { TokenResponse, UserInfo } from "../../src/protocol.js";
import { SigilError } from "./errors.js";
import { isObject, readJson, send, trimBase, type HttpOptions } from "./http.js";
import { challengeFromVerifier, generateState, generateVerifier } from "./pkce.js";
import { browserSignIn, type BeginInput, type CompleteInput } from "./browser-signin.js";

export interface SignInOptions extends HttpOptions {
  /** Address of the user-facing pages (`{auth_url}`); the base URL by default. */
  authUrl?: string;
  /** The issuer the callback's `iss` must name: Sigil's BASE_URL, so the base URL by default. */
  issuer?: string;
}

export interface AuthorizeInput {
  clientId: string;
  /** Exactly one of the app's registered redirect URLs. */
  redirectUri: string;
  /** Your own `state`; a fresh random one by default. */
  state?: string;
  /** Your own PKCE verifier; a fresh random one by default. */
  verifier?: string;
  /** Space-separated scopes, e.g. "profile offline_access" (refresh tokens); Sigil's default when absent. */
  scope?: string;
}

/** Keep `state` and `verifier` (session, sessionStorage) until the callback; send the user to `url`. */
export interface AuthorizeRequest {
  url: string;
  state: string;
  verifier: string;
}

export interface ExchangeCodeInput {
  code: string;
  verifier: string;
  redirectUri: string;
  clientId: string;
  /** The app's secret; left out by a public client (a browser or mobile app), which has none. */
  clientSecret?: string;
}

export interface RefreshInput {
  /** The newest refresh token: each refresh returns the next one, and the one sent stops working. */
  refreshToken: string;
  clientId: string;
  /** Left out by a public client. */
  clientSecret?: string;
  /** A narrower scope for the new access token (never wider than the granted one). */
  scope?: string;
}

export interface RevokeInput {
  /** An access token (revoked alone) or a refresh token (its whole sign-in is revoked). */
  token: string;
  clientId: string;
  /** Left out by a public client. */
  clientSecret?: string;
}

export interface SignInApi {
  authorize(input: AuthorizeInput): Promise<AuthorizeRequest>;
  /**
   * Reads the callback URL (or its query): checks `iss`, then `state`, then turns an OAuth
   * error (e.g. access_denied) into a SigilError, and returns the code.
   */
  parseCallback(callback: string | URL | URLSearchParams, expected: { state: string }): { code: string };
  /** Trades the code for an access token: client_secret_post, or client_id alone for a public client. */
  exchangeCode(input: ExchangeCodeInput): Promise<TokenResponse>;
  /** A new access token and refresh token for the newest refresh token (grant_type=refresh_token). */
  refresh(input: RefreshInput): Promise<TokenResponse & { refresh_token: string }>;
  /** Revokes a token (RFC 7009): on sign-out. Resolves for unknown tokens too. */
  revoke(input: RevokeInput): Promise<void>;
  /**
   * Browser app (public client): starts the sign-in from the page — PKCE and state made with Web
   * Crypto, the verifier kept in sessionStorage under the state — and sends the page to Sigil.
   */
  begin(input: BeginInput): Promise<AuthorizeRequest>;
  /**
   * Browser app (public client), on the redirect page: checks iss and that the state is one this
   * browser began (state_mismatch otherwise), then trades the code with the kept verifier.
   */
  complete(input?: CompleteInput): Promise<TokenResponse>;
  /** Server side: the signed-in user, with a token issued to this client. */
  getUser(accessToken: string, clientId: string): Promise<UserInfo>;
}

function callbackParams(callback: string | URL | URLSearchParams): URLSearchParams {
  if (callback instanceof URLSearchParams) return callback;
  // A full URL, a path with its query, or a bare query string.
  return new URL(callback, "http://callback.invalid").searchParams;
}

const isToken = (v: unknown): v is TokenResponse =>
  isObject(v) &&
  typeof v.access_token === "string" &&
  typeof v.token_type === "string" &&
  typeof v.expires_in === "number";

const isUser = (v: unknown): v is UserInfo =>
  isObject(v) &&
  typeof v.id === "string" &&
  typeof v.username === "string" &&
  typeof v.display_name === "string" &&
  typeof v.profile_picture === "string";

const hasRefresh = (v: unknown): v is TokenResponse & { refresh_token: string } =>
  isToken(v) && typeof (v as { refresh_token?: unknown }).refresh_token === "string";

/** A form POST to a token-family endpoint; the secret only when there is one. */
async function postForm(opts: HttpOptions, path: string, fields: Record<string, string | undefined>) {
  const body = new URLSearchParams();
  for (const [k, v] of Object.entries(fields)) if (v !== undefined) body.append(k, v);
  return send(opts, path, {
    method: "POST",
    headers: { "content-type": "application/x-www-form-urlencoded", accept: "application/json" },
    body: body.toString(),
  });
}

export function signInApi(opts: SignInOptions): SignInApi {
  const authUrl = trimBase(opts.authUrl ?? opts.baseUrl);
  const issuer = trimBase(opts.issuer ?? opts.baseUrl);

  const api: Omit<SignInApi, "begin" | "complete"> = {
    async authorize({ clientId, redirectUri, state = generateState(), verifier = generateVerifier(), scope }) {
      const url = new URL(`${authUrl}/authorize`);
      url.search = new URLSearchParams({
        response_type: "code",
        client_id: clientId,
        redirect_uri: redirectUri,
        ...(scope !== undefined ? { scope } : {}),
        state,
        code_challenge: await challengeFromVerifier(verifier),
        code_challenge_method: "S256",
      }).toString();
      return { url: url.toString(), state, verifier };
    },

    parseCallback(callback, expected) {
      const q = callbackParams(callback);
      // RFC 9207: Sigil always names itself, so a response without `iss` or with another
      // issuer's is refused before anything else in it is trusted.
      const iss = q.get("iss");
      if (iss === null || trimBase(iss) !== issuer) {
        throw new SigilError("issuer_mismatch", "The sign-in response does not come from this Sigil (iss).");
      }
      if (!expected.state || q.get("state") !== expected.state) {
        throw new SigilError(
          "state_mismatch",
          "The sign-in response does not belong to the sign-in this app started (state).",
        );
      }
      const error = q.get("error");
      if (error !== null) throw new SigilError(error, q.get("error_description") ?? "The sign-in did not complete.");
      const code = q.get("code");
      if (!code) throw new SigilError("invalid_response", "The sign-in response has neither a code nor an error.");
      return { code };
    },

    async exchangeCode({ code, verifier, redirectUri, clientId, clientSecret }) {
      const res = await postForm(opts, "/token", {
        grant_type: "authorization_code",
        code,
        redirect_uri: redirectUri,
        client_id: clientId,
        client_secret: clientSecret,
        code_verifier: verifier,
      });
      return readJson(res, isToken, "token");
    },

    async refresh({ refreshToken, clientId, clientSecret, scope }) {
      const res = await postForm(opts, "/token", {
        grant_type: "refresh_token",
        refresh_token: refreshToken,
        client_id: clientId,
        client_secret: clientSecret,
        scope,
      });
      return readJson(res, hasRefresh, "token");
    },

    async revoke({ token, clientId, clientSecret }) {
      await postForm(opts, "/revoke", { token, client_id: clientId, client_secret: clientSecret });
    },

    async getUser(accessToken, clientId) {
      const res = await send(opts, "/auth/user", {
        method: "GET",
        headers: { authorization: `Bearer ${accessToken}`, client_id: clientId, accept: "application/json" },
      });
      return readJson(res, isUser, "auth/user");
    },
  };
  return { ...api, ...browserSignIn(api) };
}
