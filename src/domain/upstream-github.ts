// Kind `github` (docs/upstream-providers.md#github): GitHub is an OAuth 2.0 server with a user API,
// not an OpenID provider, so there is no ID token to check: the identity is what GET /user says
// with the access token the code was traded for (its numeric id is the sub: a login can be
// renamed), and the address is the primary one GET /user/emails says is verified. The request
// carries state and PKCE (S256), as GitHub documents; the endpoints follow the settings' addresses.
import type { Upstream } from "../config/upstreams.js";

/** How long one call to GitHub may take. */
const TIMEOUT_MS = 10_000;

/** Why a GitHub call failed: it could not be reached (or answered 5xx), or it refused. */
export class GitHubCallError extends Error {
  constructor(readonly unreachable: boolean) {
    super(unreachable ? "github unreachable" : "github refused");
  }
}

export function githubAuthorizeUrl(
  u: Upstream,
  p: { redirectUri: string; state: string; codeChallenge: string },
): string {
  const q = new URLSearchParams({
    client_id: u.clientId,
    redirect_uri: p.redirectUri,
    scope: "read:user user:email",
    state: p.state,
    code_challenge: p.codeChallenge,
    code_challenge_method: "S256",
    allow_signup: "true",
  });
  return `${u.issuer}/login/oauth/authorize?${q}`;
}

async function call(url: string, init: RequestInit): Promise<unknown> {
  let r: Response;
  try {
    r = await fetch(url, { ...init, signal: AbortSignal.timeout(TIMEOUT_MS) });
  } catch {
    throw new GitHubCallError(true);
  }
  if (r.status >= 500) throw new GitHubCallError(true);
  if (!r.ok) throw new GitHubCallError(false);
  try {
    return await r.json();
  } catch {
    throw new GitHubCallError(false);
  }
}

export interface GitHubIdentity {
  subject: string;
  login?: string;
  name?: string;
  email?: string;
}

/** Trades the code (with the PKCE verifier), then reads the user and their verified primary address. */
export async function githubIdentity(
  u: Upstream,
  p: { code: string; redirectUri: string; verifier: string },
): Promise<GitHubIdentity> {
  const tokens = (await call(`${u.issuer}/login/oauth/access_token`, {
    method: "POST",
    headers: { accept: "application/json", "content-type": "application/x-www-form-urlencoded" },
    body: new URLSearchParams({
      client_id: u.clientId,
      client_secret: u.clientSecret,
      code: p.code,
      redirect_uri: p.redirectUri,
      code_verifier: p.verifier,
    }).toString(),
  })) as { access_token?: unknown };
  // GitHub answers a bad code with 200 and {"error": …}.
  if (typeof tokens.access_token !== "string") throw new GitHubCallError(false);
  const headers = {
    accept: "application/vnd.github+json",
    authorization: `Bearer ${tokens.access_token}`,
    "x-github-api-version": "2022-11-28",
    "user-agent": "sigil",
  };
  const user = (await call(`${u.apiUrl}/user`, { headers })) as { id?: unknown; login?: unknown; name?: unknown };
  if (typeof user.id !== "number" && typeof user.id !== "string") throw new GitHubCallError(false);
  const emails = (await call(`${u.apiUrl}/user/emails`, { headers })) as unknown;
  const primary = Array.isArray(emails)
    ? (emails as Array<{ email?: unknown; primary?: unknown; verified?: unknown }>).find(
        (e) => e.primary === true && e.verified === true && typeof e.email === "string",
      )
    : undefined;
  const str = (v: unknown) => (typeof v === "string" && v.trim() ? v.trim().slice(0, 256) : undefined);
  const login = str(user.login);
  const name = str(user.name);
  const email = str(primary?.email);
  return {
    subject: String(user.id),
    ...(login ? { login } : {}),
    ...(name ? { name } : {}),
    ...(email ? { email } : {}),
  };
}
