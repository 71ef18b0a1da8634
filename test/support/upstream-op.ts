// A real upstream OpenID provider for the tests of "Continue with …": panva's oidc-provider (a dev
// dependency, as in test/bench/baseline-oidc.ts) in this process, on loopback, with one confidential
// client whose redirect URI is set once the Sigil node under test knows its port (the provider is
// made at its first request: Sigil discovers it only when a sign-in starts). The person who signs
// in there is `who` (set by the test); login and consent are finished at once, as a person clicking
// through would. `tamper` re-signs the ID token of the next /token answer (with another key, or with
// another nonce) to see Sigil refuse it; stop() takes it down (an upstream that is down).
import { generateKeyPairSync, type KeyObject } from "node:crypto";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { SignJWT, decodeJwt, decodeProtectedHeader } from "jose";
import Provider from "oidc-provider";
import { expect } from "chai";
import { PageClient, csrfOf } from "./pages.js";
import type { TestNode } from "./nodes.js";

export interface UpstreamPerson {
  sub: string;
  email?: string;
  email_verified?: boolean;
  preferred_username?: string;
  name?: string;
}

const CLIENT_ID = "sigil-test";
const CLIENT_SECRET = "upstream-client-secret-0123456789";

interface UpstreamKey {
  privateKey: KeyObject;
  jwk: Record<string, unknown>;
}

function rsa(): UpstreamKey {
  const { privateKey } = generateKeyPairSync("rsa", { modulusLength: 2048 });
  return { privateKey, jwk: { ...privateKey.export({ format: "jwk" }), kid: "up-1", use: "sig", alg: "RS256" } };
}

/**
 * The upstreams' keys: one pair made once per process and shared by every TestUpstream (each has an
 * issuer of its own, so no node mixes them up). An RSA 2048 pair costs ~150 ms of CPU, and a suite
 * starting an upstream per test on both stores made two each: ~75 pairs, over 10 s of CPU.
 * `published` signs the ID tokens and is in the JWKS; `unpublished` is the forger's (`tamper`).
 */
let keys: { published: UpstreamKey; unpublished: UpstreamKey } | undefined;
function upstreamKeys(): { published: UpstreamKey; unpublished: UpstreamKey } {
  keys ??= { published: rsa(), unpublished: rsa() };
  return keys;
}

export class TestUpstream {
  who: UpstreamPerson = {
    sub: "u-alice",
    email: "alice@corp.example",
    email_verified: true,
    preferred_username: "alice",
    name: "Alice Liddell",
  };
  /** The next /token answer's ID token: re-signed with a key the upstream does not publish, or with another nonce. */
  tamper: "signature" | "nonce" | undefined;
  redirectUri = "";
  private provider: InstanceType<typeof Provider> | undefined;
  private readonly key = upstreamKeys().published;
  private readonly otherKey = upstreamKeys().unpublished;

  private constructor(
    private readonly server: Server,
    readonly issuer: string,
  ) {}

  static async start(): Promise<TestUpstream> {
    const server = createServer();
    await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
    const up = new TestUpstream(server, `http://127.0.0.1:${(server.address() as AddressInfo).port}`);
    server.on("request", (req, res) => void up.handle(req, res));
    return up;
  }

  /** The settings that make it Sigil's upstream "corp". */
  env(): Record<string, string> {
    return {
      UPSTREAM_CORP_KIND: "oidc",
      UPSTREAM_CORP_ISSUER: this.issuer,
      UPSTREAM_CORP_CLIENT_ID: CLIENT_ID,
      UPSTREAM_CORP_CLIENT_SECRET: CLIENT_SECRET,
      UPSTREAM_CORP_NAME: "Corp SSO",
    };
  }

  private made(): InstanceType<typeof Provider> {
    if (this.provider) return this.provider;
    const who = () => this.who;
    const p = new Provider(this.issuer, {
      jwks: { keys: [this.key.jwk] },
      clients: [
        {
          client_id: CLIENT_ID,
          client_secret: CLIENT_SECRET,
          redirect_uris: [this.redirectUri],
          grant_types: ["authorization_code"],
          response_types: ["code"],
        },
      ],
      async findAccount(_ctx: unknown, id: string) {
        return { accountId: id, claims: async () => ({ ...who(), sub: id }) };
      },
      claims: { openid: ["sub"], email: ["email", "email_verified"], profile: ["name", "preferred_username"] },
      scopes: ["openid", "email", "profile"],
      features: { devInteractions: { enabled: false } },
      interactions: { url: (_ctx: unknown, i: { uid: string }) => `/interaction/${i.uid}` },
      pkce: { required: () => true },
      cookies: { keys: ["upstream-cookie-key-0123456789abcdef"] },
    } as any);
    p.proxy = false;
    this.provider = p;
    return p;
  }

  private async handle(req: import("node:http").IncomingMessage, res: import("node:http").ServerResponse) {
    const provider = this.made();
    try {
      if (req.url?.startsWith("/interaction/")) {
        const d: any = await provider.interactionDetails(req, res);
        if (d.prompt.name === "login") {
          await provider.interactionFinished(
            req,
            res,
            { login: { accountId: this.who.sub } },
            { mergeWithLastSubmission: false },
          );
          return;
        }
        const grant = new provider.Grant({ accountId: d.session.accountId, clientId: d.params.client_id });
        grant.addOIDCScope(String(d.params.scope));
        await provider.interactionFinished(
          req,
          res,
          { consent: { grantId: await grant.save() } },
          { mergeWithLastSubmission: true },
        );
        return;
      }
      if (req.url === "/token" && this.tamper) this.tamperWith(res, this.tamper);
      provider.callback()(req, res);
    } catch (err) {
      res.writeHead(500).end(String(err));
    }
  }

  /** Rewrites the ID token of the answer being written (its length header follows). */
  private tamperWith(res: import("node:http").ServerResponse, how: "signature" | "nonce") {
    this.tamper = undefined;
    const end = res.end.bind(res) as (chunk?: unknown) => void;
    const setHeader = res.setHeader.bind(res);
    res.setHeader = (name: string, value: number | string | readonly string[]) =>
      name.toLowerCase() === "content-length" ? res : setHeader(name, value);
    (res as { end: unknown }).end = (chunk?: unknown) => {
      const body = JSON.parse(String(chunk)) as { id_token: string };
      const claims = decodeJwt(body.id_token);
      const key = how === "signature" ? this.otherKey.privateKey : this.key.privateKey;
      const nonce = how === "nonce" ? "not-the-nonce-sent" : claims.nonce;
      void new SignJWT({ ...claims, nonce })
        .setProtectedHeader(decodeProtectedHeader(body.id_token) as { alg: string })
        .sign(key)
        .then((id_token) => end(JSON.stringify({ ...body, id_token })));
      return res;
    };
  }

  /**
   * Follows the person's browser from the upstream's authorization URL (`location`) through login
   * and consent, back to Sigil: the URL of Sigil's callback it ends at.
   */
  async signInThere(location: string): Promise<URL> {
    const browser = new PageClient(this.issuer);
    let at = new URL(location);
    for (let hop = 0; hop < 10; hop++) {
      if (at.origin !== this.issuer) return at;
      const r = await browser.get(at.pathname + at.search);
      const next = r.headers.location;
      if (typeof next !== "string")
        throw new Error(`upstream answered ${r.status} at ${at.pathname}: ${r.text.slice(0, 300)}`);
      at = new URL(next, this.issuer);
    }
    throw new Error("upstream: too many redirects");
  }

  async stop(): Promise<void> {
    this.server.closeAllConnections();
    await new Promise<void>((r) => this.server.close(() => r()));
  }
}

/** Presses "Continue with Corp SSO" on `page`; the upstream's authorization URL it leads to. */
export async function pressContinue(
  c: PageClient,
  page = "/signin",
  action = "/upstream/corp?return_to=%2Faccount",
  english = true,
) {
  const html = (await c.get(page)).text;
  if (english) expect(html).to.include(page === "/account" ? "Add Corp SSO" : "Continue with Corp SSO");
  const r = await c.post(action, { _csrf: csrfOf(html) });
  expect(r.status, r.text.slice(0, 300)).to.equal(303);
  return String(r.headers.location);
}

/** The whole round trip: Sigil → upstream (signed in as up.who) → Sigil's callback; its answer. */
export async function continueWith(c: PageClient, up: TestUpstream, page?: string, action?: string) {
  const back = await up.signInThere(await pressContinue(c, page, action));
  return c.get(back.pathname + back.search);
}

export const usersOf = async (node: TestNode) =>
  (await node.opened.store.accounts.list({ limit: 100 })).map((u) => u.username);

/** Confirms it's the owner (step-up) by signing in again through the upstream. */
export async function confirmThroughUpstream(c: PageClient, up: TestUpstream): Promise<void> {
  const there = await up.signInThere(await pressContinue(c, "/account", "/upstream/corp?confirm=1", false));
  expect((await c.get(there.pathname + there.search)).status).to.equal(303);
}
