// Sign-in with Sigil (docs/http-api.md#sign-in-with-sigil): OAuth 2.0 authorization code with `state`, PKCE S256 and
// the RFC 9207 `iss` check. Step 1 (authorize) and step 2 (callback) run wherever the app
// keeps its session — a browser page or a server; step 3 (exchangeCode, getUser) needs the
// client secret and so runs on the app's server only.
//
// The verifier and the tokens never go into a URL: the authorize URL carries only the derived
// code_challenge, and the code travels back in the callback URL as OAuth requires.
import type { TokenResponse, UserInfo } from "../../src/protocol.js";
import { SigilError } from "./errors.js";
import { isObject, readJson, send, trimBase, type HttpOptions } from "./http.js";
import { challengeFromVerifier, generateState, generateVerifier } from "./pkce.js";

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
  clientSecret: string;
}

export interface SignInApi {
  authorize(input: AuthorizeInput): Promise<AuthorizeRequest>;
  /**
   * Reads the callback URL (or its query): checks `iss`, then `state`, then turns an OAuth
   * error (e.g. access_denied) into a SigilError, and returns the code.
   */
  parseCallback(callback: string | URL | URLSearchParams, expected: { state: string }): { code: string };
  /** Server side: trades the code for an access token (client_secret_post). */
  exchangeCode(input: ExchangeCodeInput): Promise<TokenResponse>;
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

export function signInApi(opts: SignInOptions): SignInApi {
  const authUrl = trimBase(opts.authUrl ?? opts.baseUrl);
  const issuer = trimBase(opts.issuer ?? opts.baseUrl);

  return {
    async authorize({ clientId, redirectUri, state = generateState(), verifier = generateVerifier() }) {
      const url = new URL(`${authUrl}/authorize`);
      url.search = new URLSearchParams({
        response_type: "code",
        client_id: clientId,
        redirect_uri: redirectUri,
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
      const body = new URLSearchParams({
        grant_type: "authorization_code",
        code,
        redirect_uri: redirectUri,
        client_id: clientId,
        client_secret: clientSecret,
        code_verifier: verifier,
      });
      const res = await send(opts, "/token", {
        method: "POST",
        headers: { "content-type": "application/x-www-form-urlencoded", accept: "application/json" },
        body: body.toString(),
      });
      return readJson(res, isToken, "token");
    },

    async getUser(accessToken, clientId) {
      const res = await send(opts, "/auth/user", {
        method: "GET",
        headers: { authorization: `Bearer ${accessToken}`, client_id: clientId, accept: "application/json" },
      });
      return readJson(res, isUser, "auth/user");
    },
  };
}
