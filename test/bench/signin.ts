// Sign-in: GET /auth/user and POST /token, Sigil on Redis beside panva's oidc-provider (its memory
// adapter, baseline-oidc.ts) in one run. Each side's access token and codes come through its own
// real flow: Sigil's sign-up, /developers and consent pages over HTTP (as a browser without
// JavaScript would), oidc-provider's /auth with its interaction finished programmatically.
// POST /token: codes are single use, so each round trades a fixed count of codes minted just before
// it (BENCH_TOKEN_CODES, default 2000, plus a tenth for warm-up) — throughput and latency over that
// count, not over BENCH_SECONDS.
import { decodeProtectedHeader } from "jose";
import { freePort } from "../support/ports.js";
import { http, type TestResponse } from "../support/http.js";
import { PageClient, authorize, basic, pkce, registerApp } from "../support/pages.js";
import { startProcess, type ServerProcess } from "../support/processes.js";
import { startBenchSigil } from "./lib/sockets.js";
import { measure, selected, sideBySide, type LoadOptions, type LoadRequest, type Measurement } from "./lib/load.js";
import type { BenchContext, BenchModule } from "./lib/module.js";
import { profileArgs, stopAll } from "./lib/processes.js";
import type { Row } from "./lib/report.js";

export const REDIRECT = "https://app.example/callback";
const GOAL = 2;

interface Side {
  name: string;
  proc: ServerProcess;
  clientId: string;
  clientSecret: string;
  /** Mints one authorization code through the side's own flow (session and consent already there). */
  mintCode(): Promise<string>;
  tokenRequest(code: string): LoadRequest;
  userRequest(accessToken: string): LoadRequest;
  userPath: string;
  mintConcurrency: number;
}

/** Follows same-origin redirects with the page client's cookies until one leaves for the app. */
async function follow(client: PageClient, first: TestResponse): Promise<URL> {
  let r = first;
  for (let hop = 0; hop < 12; hop++) {
    if (r.status < 300 || r.status >= 400)
      throw new Error(`flow: expected a redirect, got ${r.status} ${r.text.slice(0, 300)}`);
    const loc = new URL(r.headers.location as string, client.base);
    if (loc.href.startsWith(REDIRECT)) return loc;
    r = await client.get(loc.pathname + loc.search);
  }
  throw new Error("flow: too many redirects");
}

/** POST /token trading a code, as the app does on either side: HTTP Basic client auth and the PKCE verifier. */
export function tokenPost(authorization: string, code: string, verifier: string): LoadRequest {
  return {
    method: "POST",
    path: "/token",
    headers: { "content-type": "application/x-www-form-urlencoded", authorization },
    body: new URLSearchParams({
      grant_type: "authorization_code",
      code,
      redirect_uri: REDIRECT,
      code_verifier: verifier,
    }).toString(),
  };
}

function codeOf(u: URL): string {
  const code = u.searchParams.get("code");
  if (!code) throw new Error(`flow: no code in ${u.href}`);
  return code;
}

async function mintPool(side: Side, n: number): Promise<string[]> {
  const codes: string[] = [];
  for (let i = 0; i < n; i += side.mintConcurrency) {
    codes.push(
      ...(await Promise.all(Array.from({ length: Math.min(side.mintConcurrency, n - i) }, () => side.mintCode()))),
    );
  }
  return codes;
}

/**
 * What one module measures on Sigil's side: plain OAuth (`signin`: no scope, `/auth/user`, a trade
 * without an ID token) or OpenID Connect (`oidc`: `openid profile`, `/userinfo`, a trade that
 * signs an ID token, as oidc-provider's always does here).
 */
interface Variant {
  scope?: string;
  userPath: "/auth/user" | "/userinfo";
  userRow: string;
  tokenRow: string;
  /** ID tokens signed with ES256 on both sides (ID_TOKEN_SIGNING_ALG; an EC key for oidc-provider). */
  es256?: boolean;
  /** Measure only the trade (the userinfo row does not depend on the signature). */
  tokenOnly?: boolean;
}

async function runSignin(ctx: BenchContext, variant: Variant): Promise<Row[]> {
  const { settings } = ctx;
  const codesPerRound = Number(process.env.BENCH_TOKEN_CODES ?? 2000);
  const mintConcurrency = Number(process.env.BENCH_MINT_CONCURRENCY ?? 1);
  const op = await freePort();
  const procs: ServerProcess[] = [];
  try {
    const sigil = await startBenchSigil(ctx.redis.url, {
      env: { CODE_TTL: "600", ...(variant.es256 ? { ID_TOKEN_SIGNING_ALG: "ES256" } : {}) },
      nodeArgs: profileArgs(settings),
    });
    procs.push(sigil);
    const oidcClient = { id: "bench-client", secret: "bench-client-secret-0123456789abcdef" };
    const oidc = await startProcess({
      name: "oidc-provider",
      entry: "test/bench/baseline-oidc.ts",
      port: op,
      env: {
        PORT: String(op),
        CLIENT_ID: oidcClient.id,
        CLIENT_SECRET: oidcClient.secret,
        REDIRECT_URI: REDIRECT,
        NODE_ENV: "development",
        ...(variant.es256 ? { SIGNING_ALG: "ES256" } : {}),
      },
    });
    procs.push(oidc);
    const { verifier, challenge } = pkce();

    // Sigil: a developer registers an app on /developers; a user signs up and consents once.
    const dev = new PageClient(sigil.url);
    await dev.signUp("devon-bench");
    const app = await registerApp(dev, [REDIRECT], "Bench App");
    const user = new PageClient(sigil.url);
    const su = await user.signUp("alice-bench", "correct horse battery", "Alice Liddell");
    if (su.status >= 400) throw new Error(`setup: sign-up failed ${su.status}`);
    const sigilAuth = {
      client_id: app.clientId,
      redirect_uri: REDIRECT,
      response_type: "code",
      state: "s",
      code_challenge: challenge,
      code_challenge_method: "S256",
      ...(variant.scope ? { scope: variant.scope } : {}),
    };
    const sigilBasic = basic(app.clientId, app.clientSecret);
    const sigilSide: Side = {
      name: "sigil",
      proc: sigil,
      clientId: app.clientId,
      clientSecret: app.clientSecret,
      mintCode: async () => codeOf(await authorize(user, sigilAuth)),
      tokenRequest: (code) => tokenPost(sigilBasic, code, verifier),
      userRequest: (at) => ({
        method: "GET",
        path: variant.userPath,
        headers: {
          authorization: `Bearer ${at}`,
          ...(variant.userPath === "/auth/user" ? { client_id: app.clientId } : {}),
        },
      }),
      userPath: variant.userPath,
      mintConcurrency,
    };

    // oidc-provider: /auth, login and consent finished by the interaction endpoint, once; then
    // each /auth redirects straight back with a code (session + grant), as Sigil's does.
    const browser = new PageClient(oidc.url);
    const oidcAuth = `/auth?${new URLSearchParams({ client_id: oidcClient.id, redirect_uri: REDIRECT, response_type: "code", scope: "openid profile", state: "s", code_challenge: challenge, code_challenge_method: "S256" })}`;
    const oidcBasic = basic(oidcClient.id, oidcClient.secret);
    const oidcSide: Side = {
      name: "oidc-provider",
      proc: oidc,
      clientId: oidcClient.id,
      clientSecret: oidcClient.secret,
      mintCode: async () => codeOf(await follow(browser, await browser.get(oidcAuth))),
      tokenRequest: (code) => tokenPost(oidcBasic, code, verifier),
      userRequest: (at) => ({ method: "GET", path: "/me", headers: { authorization: `Bearer ${at}` } }),
      userPath: "/me",
      mintConcurrency,
    };

    // One access token per side, through its flow, checked on its userinfo endpoint.
    const tokens = new Map<Side, string>();
    for (const side of [sigilSide, oidcSide]) {
      const code = await side.mintCode();
      const req = side.tokenRequest(code);
      const t = await http(side.proc.url, req.path, { method: req.method, headers: req.headers!, body: req.body! });
      if (t.status !== 200 || typeof t.json?.access_token !== "string")
        throw new Error(`setup: ${side.name} /token answered ${t.status} ${t.text}`);
      if (variant.scope && typeof t.json.id_token !== "string")
        throw new Error(`setup: ${side.name} /token answered without an ID token: ${t.text}`);
      const alg = variant.scope ? decodeProtectedHeader(t.json.id_token as string).alg : undefined;
      if (variant.scope && alg !== (variant.es256 ? "ES256" : "RS256"))
        throw new Error(`setup: ${side.name} signed its ID token with ${alg}`);
      tokens.set(side, t.json.access_token as string);
      const ureq = side.userRequest(t.json.access_token as string);
      const u = await http(side.proc.url, ureq.path, { headers: ureq.headers! });
      if (u.status !== 200) throw new Error(`setup: ${side.name} userinfo answered ${u.status} ${u.text}`);
      ctx.log(`  ${side.name}: ${u.text}`);
    }

    const rows: Row[] = [];
    const common = {
      seconds: settings.seconds,
      warmupSeconds: settings.warmupSeconds,
      connections: settings.connections,
    };
    const name = variant.userRow;
    if (!variant.tokenOnly && selected(settings, name)) {
      const opt = (side: Side): LoadOptions => {
        const req = side.userRequest(tokens.get(side)!);
        return { ...common, url: side.proc.url, pid: side.proc.pid, next: () => req };
      };
      const sides = await sideBySide(ctx, name, opt(sigilSide), opt(oidcSide));
      rows.push({ name, ...sides, goal: GOAL, labels: ["Sigil", "oidc-provider"] });
    }

    const tname = variant.tokenRow;
    if (selected(settings, tname) && codesPerRound > 0) {
      const warm = Math.ceil(codesPerRound / 10);
      const best: Partial<Record<string, Measurement>> = {};
      const unexpected: Record<string, number> = {};
      for (let round = 1; round <= Math.max(1, settings.rounds); round++) {
        const line: string[] = [];
        for (const side of [sigilSide, oidcSide]) {
          const t0 = Date.now();
          const pool = await mintPool(side, codesPerRound + warm);
          const mintMs = Date.now() - t0;
          let i = 0;
          let bad = 0;
          let firstBad = "";
          const m = await measure({
            ...common,
            url: side.proc.url,
            pid: side.proc.pid,
            amount: codesPerRound,
            warmupAmount: warm,
            // one code per request; never reused (a replay would be an error, counted as non-2xx)
            next: () => side.tokenRequest(pool[i++] ?? "exhausted"),
            onResponse: (status, body) => {
              if (status !== 200 && bad++ === 0) firstBad = `${status} ${body.slice(0, 200)}`;
            },
            // With openid, every trade must have signed an ID token, or the row measured less.
            ...(variant.scope
              ? { expect: (status: number, body: string) => status === 200 && body.includes('"id_token"') }
              : {}),
          });
          if (bad > 0)
            ctx.log(
              `  ${side.name}: ${bad} token trades failed, the first with ${firstBad}\n${side.proc.output().slice(-600)}`,
            );
          line.push(
            `${side.name} ${m.rps.toFixed(0)} trades/s p99 ${m.p99} ms (minted ${pool.length} codes in ${mintMs} ms)`,
          );
          unexpected[side.name] = (unexpected[side.name] ?? 0) + (m.unexpected ?? 0);
          if (!best[side.name] || m.rps > best[side.name]!.rps) best[side.name] = m;
        }
        ctx.log(`  ${tname} round ${round}: ${line.join(", ")}`);
      }
      rows.push({
        name: tname,
        // Unexpected answers of any round fail the row, not only the best round's.
        subject: { ...best[sigilSide.name]!, unexpected: unexpected[sigilSide.name] ?? 0 },
        baseline: { ...best[oidcSide.name]!, unexpected: unexpected[oidcSide.name] ?? 0 },
        goal: GOAL,
        labels: ["Sigil", "oidc-provider"],
        note: `a fixed count of ${codesPerRound} single-use codes per round (after ${Math.ceil(codesPerRound / 10)} of warm-up), minted through each flow just before; req/s = count / elapsed`,
      });
    }
    return rows;
  } finally {
    await stopAll(ctx, procs);
  }
}

export const signinBench: BenchModule = {
  name: "signin",
  description: "GET /auth/user and POST /token vs oidc-provider (userinfo, token endpoint; memory adapter)",
  run: (ctx) =>
    runSignin(ctx, {
      userPath: "/auth/user",
      userRow: "GET /auth/user (userinfo)",
      tokenRow: "POST /token (code trade)",
    }),
};

export const oidcEs256Bench: BenchModule = {
  name: "oidc-es256",
  description: "OpenID Connect: POST /token with an ID token signed with ES256 on both sides vs oidc-provider",
  run: (ctx) =>
    runSignin(ctx, {
      scope: "openid profile",
      userPath: "/userinfo",
      userRow: "GET /userinfo",
      tokenRow: "POST /token (code trade, ID token signed, ES256 on both sides)",
      es256: true,
      tokenOnly: true,
    }),
};

export const oidcBench: BenchModule = {
  name: "oidc",
  description: "OpenID Connect: GET /userinfo and POST /token with an ID token vs oidc-provider (memory adapter)",
  run: (ctx) =>
    runSignin(ctx, {
      scope: "openid profile",
      userPath: "/userinfo",
      userRow: "GET /userinfo",
      tokenRow: "POST /token (code trade, ID token signed)",
    }),
};
