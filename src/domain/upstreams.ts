// Upstream providers (docs/upstream-providers.md): "Continue with <name>" through another OpenID
// provider. start() makes the authorization request (code + PKCE + nonce + state) and keeps what
// the callback needs server-side, for one use, under a random id the browser holds in a cookie;
// finish() takes it (a replayed or unknown callback finds nothing), trades the code and validates
// the upstream's ID token (signature by its JWKS, iss, aud, exp, nonce) with openid-client.
// The upstreams are the settings' and those added on /admin (upstream-providers.ts), read from the
// store on every use, so that a change made on one node is used by every node at once; a
// provider's discovered metadata is kept while its issuer, client id and secret stay the same.
import { randomBytes } from "node:crypto";
import * as oidc from "openid-client";
import type { Config } from "../config.js";
import type { Upstream } from "../config/upstreams.js";
import { SigilError, rateLimited, type PlainErrorId } from "../errors.js";
import type { Store } from "../store/port.js";
import type { AttemptLimiter } from "../store/ports/limits.js";
import { LIMITS } from "./limits.js";
import { GitHubCallError, githubAuthorizeUrl, githubIdentity, type GitHubIdentity } from "./upstream-github.js";
import type { UpstreamProviders } from "./upstream-providers.js";

/** How long a started upstream sign-in may take to come back (seconds). */
export const UPSTREAM_FLOW_TTL = 600;

/** What the callback needs, kept server-side under the browser's random id. */
interface FlowRecord {
  upstream: string;
  state: string;
  nonce: string;
  verifier: string;
  returnTo: string;
  /** Started from /account by this signed-in user: link, do not sign in. */
  linkTo?: string;
  /** Started from "Confirm it's you" by this signed-in user: a proof, if the identity is theirs. */
  confirmFor?: string;
}

/** The identity the upstream vouched for (its validated ID token's claims). */
export interface UpstreamIdentity {
  upstream: Upstream;
  issuer: string;
  subject: string;
  email?: string;
  emailVerified: boolean;
  name?: string;
  preferredUsername?: string;
}

const REASONS = {
  expired: ["err.upstreamExpired", 400, "invalid_request"],
  unreachable: ["err.upstreamUnreachable", 502, "unavailable"],
  refused: ["err.upstreamRefused", 403, "access_denied"],
  invalid: ["err.upstreamInvalid", 400, "invalid_grant"],
} as const;

/** Why an upstream sign-in failed: shown as a page (pages/upstream.ts), never in the upstream's words. */
export class UpstreamError extends SigilError {
  constructor(readonly reason: keyof typeof REASONS) {
    const [id, status, code] = REASONS[reason];
    super(status, code, id as PlainErrorId, {} as never);
  }
}

/** What a flow was started for, besides signing in. */
const rest = (f: FlowRecord) => ({
  ...(f.linkTo ? { linkTo: f.linkTo } : {}),
  ...(f.confirmFor ? { confirmFor: f.confirmFor } : {}),
});

/** The store's key of a started flow (the passkeys' one-use challenge table: same need, same store). */
const flowKey = (id: string) => `upstream:${id}`;

/** What the discovered metadata was made with: another issuer, client id or secret is another provider. */
const madeWith = (u: Upstream) => JSON.stringify([u.issuer, u.clientId, u.clientSecret]);

export class Upstreams {
  /** By id: the metadata, and what it was discovered with. */
  private readonly discovered = new Map<string, { with: string; metadata: Promise<oidc.Configuration> }>();

  constructor(
    private readonly config: Config,
    private readonly store: Store,
    private readonly providers: UpstreamProviders,
  ) {
    this.starts = store.limiter(LIMITS.upstreamStarts);
  }

  /** Sign-ins begun, per address: each keeps a flow record in the store until it is used or expires. */
  private readonly starts: AttemptLimiter;

  /**
   * Every upstream offered now: the settings', then those added on /admin, by id. The discovered
   * metadata of one no longer offered (removed on any node) is dropped.
   */
  async list(): Promise<Upstream[]> {
    const all = [...this.config.upstreams, ...(await this.providers.usable())];
    for (const id of this.discovered.keys()) if (!all.some((u) => u.id === id)) this.discovered.delete(id);
    return all;
  }

  async byId(id: string): Promise<Upstream | undefined> {
    const set = this.config.upstreams.find((u) => u.id === id);
    if (set) return set;
    return (await this.providers.usable()).find((u) => u.id === id);
  }

  callbackUrl(u: Upstream): string {
    return `${this.config.authUrl}/upstream/${u.id}/callback`;
  }

  /** The upstream's metadata, discovered once (a failure is not kept: the next sign-in tries again). */
  private metadata(u: Upstream): Promise<oidc.Configuration> {
    const known = this.discovered.get(u.id);
    // Changed on /admin since (on any node): discovered again, with what it is now.
    let p = known?.with === madeWith(u) ? known.metadata : undefined;
    if (!p) {
      // The ID token's signature is checked against the upstream's JWKS even though it comes
      // straight from its token endpoint (openid-client would otherwise trust TLS alone); http: is
      // allowed for an issuer that says so (a provider on this host, the tests).
      const execute = [oidc.enableNonRepudiationChecks];
      if (u.issuer.startsWith("http:")) execute.push(oidc.allowInsecureRequests);
      p = oidc.discovery(new URL(u.issuer), u.clientId, u.clientSecret, undefined, { execute, timeout: 10 });
      const entry = { with: madeWith(u), metadata: p };
      p.catch(() => {
        if (this.discovered.get(u.id) === entry) this.discovered.delete(u.id);
      });
      this.discovered.set(u.id, entry);
    }
    return p.catch(() => {
      throw new UpstreamError("unreachable");
    });
  }

  /**
   * Starts a sign-in (or, with linkTo, a link) through u from `address`: the URL to send the
   * browser to, and the flow's id for its cookie. 429 past LIMITS.upstreamStarts (nothing kept).
   */
  async start(
    u: Upstream,
    returnTo: string,
    address: string,
    by: { linkTo?: string | undefined; confirmFor?: string | undefined } = {},
  ): Promise<{ url: string; flowId: string }> {
    const limit = await this.starts.consume(address);
    if (!limit.allowed) throw rateLimited(limit.retryAfterMs / 1000, "err.upstreamThrottled");
    const verifier = oidc.randomPKCECodeVerifier();
    const flow: FlowRecord = {
      upstream: u.id,
      state: oidc.randomState(),
      nonce: oidc.randomNonce(),
      verifier,
      returnTo,
      ...(by.linkTo ? { linkTo: by.linkTo } : {}),
      ...(by.confirmFor ? { confirmFor: by.confirmFor } : {}),
    };
    const codeChallenge = await oidc.calculatePKCECodeChallenge(verifier);
    const redirectUri = this.callbackUrl(u);
    const url =
      u.kind === "github"
        ? githubAuthorizeUrl(u, { redirectUri, state: flow.state, codeChallenge })
        : oidc
            .buildAuthorizationUrl(await this.metadata(u), {
              redirect_uri: redirectUri,
              scope: "openid email profile",
              response_type: "code",
              code_challenge: codeChallenge,
              code_challenge_method: "S256",
              state: flow.state,
              nonce: flow.nonce,
              // A confirmation asks the upstream to sign the person in again, not to reuse its session.
              ...(by.confirmFor ? { prompt: "login" } : {}),
            })
            .toString();
    const flowId = randomBytes(24).toString("base64url");
    await this.store.passkeys.saveChallenge(flowKey(flowId), JSON.stringify(flow), UPSTREAM_FLOW_TTL);
    return { url, flowId };
  }

  /**
   * Finishes the flow the browser's cookie names, with the callback's URL (code, state, or the
   * upstream's error): the identity, where to go next and, for a link, the user. The flow is taken
   * first, so a callback replayed (or raced) finds nothing.
   */
  async finish(
    u: Upstream,
    flowId: string | undefined,
    callback: URL,
  ): Promise<{ identity: UpstreamIdentity; returnTo: string; linkTo?: string; confirmFor?: string }> {
    const raw = flowId ? await this.store.passkeys.takeChallenge(flowKey(flowId)) : null;
    if (raw === null) throw new UpstreamError("expired");
    const flow = JSON.parse(raw) as FlowRecord;
    if (flow.upstream !== u.id) throw new UpstreamError("expired");
    if (callback.searchParams.has("error")) throw new UpstreamError("refused");
    if (u.kind === "github")
      return {
        ...(await this.finishGitHub(u, flow, callback)),
        returnTo: flow.returnTo,
        ...rest(flow),
      };
    const md = await this.metadata(u);
    let claims: Record<string, unknown> & { sub: string; iss: string };
    try {
      const tokens = await oidc.authorizationCodeGrant(md, callback, {
        pkceCodeVerifier: flow.verifier,
        expectedState: flow.state,
        expectedNonce: flow.nonce,
        idTokenExpected: true,
      });
      const id = tokens.claims();
      if (!id?.sub) throw new UpstreamError("invalid");
      claims = id;
      // A provider that keeps to OpenID Connect §5.4 puts the scopes' claims (email, name) in its
      // userinfo only, when an access token is issued: read them there, for this same sub.
      if (id.email === undefined && md.serverMetadata().userinfo_endpoint) {
        claims = { ...(await oidc.fetchUserInfo(md, tokens.access_token, id.sub)), sub: id.sub, iss: id.iss };
      }
    } catch (e) {
      if (e instanceof UpstreamError) throw e;
      // Cannot reach it (or it answered 5xx): unreachable; anything else is a callback or token we refuse.
      const reach = e instanceof TypeError || (e as { status?: number }).status! >= 500;
      throw new UpstreamError(reach ? "unreachable" : "invalid");
    }
    const str = (v: unknown) => (typeof v === "string" && v.trim() ? v.trim().slice(0, 256) : undefined);
    const email = str(claims.email);
    const name = str(claims.name);
    const preferredUsername = str(claims.preferred_username);
    return {
      identity: {
        upstream: u,
        issuer: claims.iss,
        subject: claims.sub,
        emailVerified: claims.email_verified === true,
        ...(email ? { email } : {}),
        ...(name ? { name } : {}),
        ...(preferredUsername ? { preferredUsername } : {}),
      },
      returnTo: flow.returnTo,
      ...rest(flow),
    };
  }

  private async finishGitHub(u: Upstream, flow: FlowRecord, callback: URL): Promise<{ identity: UpstreamIdentity }> {
    const code = callback.searchParams.get("code");
    if (callback.searchParams.get("state") !== flow.state || !code) throw new UpstreamError("invalid");
    let g: GitHubIdentity;
    try {
      g = await githubIdentity(u, { code, redirectUri: this.callbackUrl(u), verifier: flow.verifier });
    } catch (e) {
      if (e instanceof GitHubCallError) throw new UpstreamError(e.unreachable ? "unreachable" : "invalid");
      throw e;
    }
    return {
      identity: {
        upstream: u,
        issuer: u.issuer,
        subject: g.subject,
        // Only the primary address GitHub says is verified is read at all.
        emailVerified: g.email !== undefined,
        ...(g.email ? { email: g.email } : {}),
        ...(g.name ? { name: g.name } : {}),
        ...(g.login ? { preferredUsername: g.login } : {}),
      },
    };
  }
}
