// The hot routes (the route table's JSON-in-JSON-out rows: POST /challenge/solve, POST
// /challenge/new, GET /auth/user, GET /userinfo) are served on the fast path when the URL is
// exactly theirs and there is no body; the same request with a query string ("?") or a body goes
// through express, and so does every request on a node with HOT_ROUTES=off. All must look the
// same from outside: every header but Date and X-Request-Id, the status and the body. Each case
// below runs several of these ways, one on a second node over the same store with HOT_ROUTES=off:
// this is how `npm test` runs the hot routes' cases with the fast path off too, without running
// the HTTP suites twice (HOT_ROUTES=off npm run test:express-only runs those whole, by hand).
import { expect } from "chai";
import fc from "fast-check";
import { settings } from "../src/config/settings.js";
import { isHot } from "../src/http/route.js";
import { routes } from "../src/http/routes.js";
import { createMetrics } from "../src/metrics.js";
import { describeBackends, type Backend } from "./support/backends.js";
import { challengeApi, http, utf8Header, type TestResponse } from "./support/http.js";
import type { TestNode } from "./support/nodes.js";
import { signInWith } from "./support/oidc.js";
import { PageClient, authorize, basic, registerApp, token } from "./support/pages.js";
import { registerPublicApp } from "./support/grants.js";

const SAME_HEADERS = [
  "content-type",
  "access-control-allow-origin",
  "access-control-expose-headers",
  "vary",
  "connection",
];
const pick = (r: TestResponse) => Object.fromEntries(SAME_HEADERS.map((h) => [h, r.headers[h]]));

/** Every response header but the two that differ by design (Date, X-Request-Id). */
const allHeaders = (r: TestResponse) => {
  const { date: _date, "x-request-id": _id, ...rest } = r.headers;
  return rest;
};

/** A node, and its twin over the same store with HOT_ROUTES=off. */
interface Pair {
  on: TestNode;
  off: TestNode;
}

async function startPair(backend: Backend, env: Record<string, string> = {}): Promise<Pair> {
  const on = await backend.startNode({ ...env, HOT_ROUTES: "on" });
  return { on, off: await backend.startTwin(on, { ...env, HOT_ROUTES: "off" }) };
}

/**
 * The ways to one route: the fast path, express by a query string, express by a body, and the
 * plain request on the HOT_ROUTES=off twin.
 */
type Way = "fast" | "query" | "body" | "off";
/**
 * The challenge cases' ways: "query" would add nothing to "off" there (the same request through
 * the same express code, a "?" apart), so the cases run three ways, as many requests as before
 * the twin came; /auth/user and /userinfo, whose query string matters, run all four.
 */
const WAYS: Way[] = ["fast", "body", "off"];
function reach(pair: Pair, way: Way, method: string, path: string, headers: Record<string, string>) {
  const base = pair.on.url;
  if (way === "fast") return http(base, path, { method, headers });
  if (way === "off") return http(pair.off.url, path, { method, headers });
  if (way === "query") return http(base, `${path}?`, { method, headers });
  return http(base, path, {
    method,
    headers: { ...headers, "content-type": "application/json" },
    body: Buffer.from("{}"),
  });
}

/**
 * Status, every header but Date and X-Request-Id, and the body (a new challenge's key as "<key>";
 * the twin's own address, as in a picture URL, as the first node's).
 */
const answer = (r: TestResponse, pair?: Pair) => {
  const json = pair && r.json !== undefined ? JSON.parse(r.text.replaceAll(pair.off.url, pair.on.url)) : r.json;
  return {
    status: r.status,
    headers: allHeaders(r),
    body: typeof json?.key === "string" ? { ...json, key: "<key>" } : (json ?? r.text),
  };
};

describeBackends("Hot routes and the express path answer alike", (backend) => {
  for (const corsOrigins of ["", "https://app.example"]) {
    it(`When the same solve comes with and without a body (CORS_ORIGINS="${corsOrigins}"), then status, headers and body match`, async () => {
      const node = await backend.startNode(corsOrigins ? { CORS_ORIGINS: corsOrigins } : {});
      const api = challengeApi(node.url);
      const key = await api.createKey("q", "right");
      const origin = { origin: "https://app.example" };
      const hot = await api.solve(key, "right", origin);
      const viaExpress = await http(node.url, "/challenge/solve", {
        method: "POST",
        headers: { "content-type": "application/json", ...origin },
        body: JSON.stringify({ key, a: "right" }),
      });
      const empty = await http(node.url, "/challenge/solve", {
        method: "POST",
        headers: { "content-type": "application/json", "content-length": "0", key, a: "right", ...origin },
      });
      for (const r of [hot, viaExpress, empty]) {
        expect(r.status).to.equal(200);
        expect(r.json).to.deep.equal({ correct: true });
        expect(r.headers["x-request-id"]).to.match(/^[0-9a-f-]{36}$/);
      }
      expect(pick(hot)).to.deep.equal(pick(viaExpress));
      expect(pick(empty)).to.deep.equal(pick(viaExpress));
    });
  }

  it("When errors happen on a hot route, then they are the same JSON errors with their headers", async () => {
    const node = await backend.startNode({ SOLVE_LIMIT_PER_ADDRESS: "1" });
    const api = challengeApi(node.url);
    expect(
      (await http(node.url, "/challenge/new", { method: "POST", headers: { question: "q" } })).json.error,
    ).to.equal("invalid_request");
    expect((await api.solve("0b7c3d38-2b8a-4f5e-9a39-6a0d2d0c1e11", "x")).status).to.equal(404);
    const key = await api.createKey("q", "right");
    await api.solve(key, "wrong");
    const limited = await api.solve(key, "wrong");
    expect(limited.status).to.equal(429);
    expect(limited.headers["retry-after"]).to.match(/^\d+$/);
    expect(limited.headers["access-control-allow-origin"]).to.equal("*");
    expect((await api.create("q", "a", { authorization: "Bearer nope" })).status).to.equal(401);
  });

  it("When hot requests are served, with the fast path on or off, then /metrics counts them under their route and X-Request-Id is echoed", async () => {
    const pair = await startPair(backend);
    for (const node of [pair.on, pair.off]) {
      const api = challengeApi(node.url);
      const r = await api.create("q", "a", { "x-request-id": "trace-123" });
      expect(r.headers["x-request-id"]).to.equal("trace-123");
      await api.solve(r.json.key, "a");
      const metrics = (await http(node.url, "/metrics")).text;
      expect(metrics).to.match(/sigil_http_requests_total\{method="POST",route="\/challenge\/new",status="201"\} 1/);
      expect(metrics).to.match(/sigil_http_requests_total\{method="POST",route="\/challenge\/solve",status="200"\} 1/);
    }
  });

  it("When the route table's hot routes are listed, then they are the five whose cases this file runs on the fast path, through express and with HOT_ROUTES=off", async () => {
    const node = await backend.startNode();
    const { api } = routes({ config: node.config, services: node.server.services, metrics: createMetrics() });
    const hot = api.filter(isHot).map((r) => `${r.spec.method.toUpperCase()} ${r.spec.path}`);
    // A new hot route needs its cases here (fast, express, HOT_ROUTES=off) before this list grows.
    expect(hot.sort()).to.deep.equal([
      "GET /auth/user",
      "GET /userinfo",
      "POST /challenge/new",
      "POST /challenge/solve",
      "POST /token",
    ]);
    // HOT_ROUTES's documentation (docs/settings.md is made from it) names each of them.
    for (const r of hot) expect(settings.HOT_ROUTES.doc.meaning, "HOT_ROUTES's meaning").to.include(`\`${r}\``);
  });

  for (const corsOrigins of ["", "https://app.example"]) {
    it(`When each challenge route is reached the fast way, with a body and with HOT_ROUTES=off (CORS_ORIGINS="${corsOrigins}"), then every header but Date and X-Request-Id, the status and the body match`, async () => {
      const pair = await startPair(backend, {
        SOLVE_LIMIT_PER_ADDRESS: "1",
        ...(corsOrigins ? { CORS_ORIGINS: corsOrigins } : {}),
      });
      const node = pair.on;
      const api = challengeApi(node.url);
      const { token: customToken } = await node.server.customTokens.create({ app: "test-app" });
      const origins: Array<Record<string, string>> = [
        {},
        { origin: "https://app.example" },
        { origin: "https://else.example" },
      ];
      for (const origin of origins) {
        const unknown = "0b7c3d38-2b8a-4f5e-9a39-6a0d2d0c1e11";
        // Each case runs once per way; `setup` gives each way state of its own (a fresh key).
        const cases: Array<{ name: string; path: string; setup?: () => Promise<Record<string, string>> }> = [
          { name: "new", path: "/challenge/new", setup: async () => ({ question: "q", answer: "a", ttl: "60" }) },
          {
            name: "new, owned",
            path: "/challenge/new",
            setup: async () => ({ question: "q", answer: "a", authorization: `Bearer ${customToken}` }),
          },
          {
            name: "new, bad token",
            path: "/challenge/new",
            setup: async () => ({ question: "q", answer: "a", authorization: "Bearer nope" }),
          },
          { name: "new, no answer", path: "/challenge/new", setup: async () => ({ question: "q" }) },
          {
            name: "solve, right",
            path: "/challenge/solve",
            setup: async () => ({ key: await api.createKey("q", "right"), a: "right" }),
          },
          {
            name: "solve, wrong",
            path: "/challenge/solve",
            setup: async () => ({ key: await api.createKey("q", "right"), a: "wrong" }),
          },
          { name: "solve, unknown", path: "/challenge/solve", setup: async () => ({ key: unknown, a: "x" }) },
          { name: "solve, no key", path: "/challenge/solve", setup: async () => ({ a: "x" }) },
          {
            name: "solve, limited",
            path: "/challenge/solve",
            setup: async () => {
              const key = await api.createKey("q", "right");
              expect((await api.solve(key, "wrong")).json).to.deep.equal({ correct: false });
              return { key, a: "wrong again" };
            },
          },
        ];
        for (const c of cases) {
          const answers = [];
          for (const way of WAYS) {
            const headers = { ...(await c.setup!()), ...origin };
            answers.push(answer(await reach(pair, way, "POST", c.path, headers), pair));
          }
          const what = `${c.name} ${JSON.stringify(origin)}`;
          expect(answers[1], `${what}: fast vs body`).to.deep.equal(answers[0]);
          expect(answers[2], `${what}: fast vs HOT_ROUTES=off`).to.deep.equal(answers[0]);
        }
      }
    });
  }

  it("When random header values reach both paths, then status and body are the same (differential fuzz)", async function () {
    this.timeout(30_000);
    const node = await backend.startNode({
      LOG_LEVEL: "warn",
      SOLVE_LIMIT_PER_ADDRESS: "1000000",
      SOLVE_LIMIT_PER_KEY: "1000000",
    });
    const api = challengeApi(node.url);
    const known = await api.createKey("q", "right ✓");
    const text = fc.oneof(
      fc
        .string({ maxLength: 12 })
        .filter((t) => !/[\x00-\x1f\x7f]/.test(t))
        .map(utf8Header),
      fc.string({ unit: fc.integer({ min: 0x80, max: 0xff }).map((c) => String.fromCharCode(c)), maxLength: 4 }),
      fc.constantFrom("", " ", utf8Header("right ✓"), "x".repeat(201), "60", "59", "abc", "99999999999"),
      fc.constant(known),
      fc.uuid(),
    );
    const fields = fc.dictionary(fc.constantFrom("key", "a", "question", "answer", "ttl"), text, { maxKeys: 4 });
    const strip = (r: TestResponse) => ({
      status: r.status,
      body: r.json?.key !== undefined ? { key: "<uuid>" } : r.json,
      retry: r.headers["retry-after"] !== undefined,
    });
    await fc.assert(
      fc.asyncProperty(fc.constantFrom("/challenge/solve", "/challenge/new"), fields, async (path, headers) => {
        const hot = await http(node.url, path, { method: "POST", headers });
        const viaExpress = await http(node.url, path, {
          method: "POST",
          headers: { ...headers, "content-type": "application/json", "content-length": "2" },
          // A Buffer, not a string: node:http writes a string body together with the headers in
          // UTF-8, which would re-encode latin1 header bytes and hide invalid UTF-8.
          body: Buffer.from("{}"),
        });
        expect(strip(hot), JSON.stringify(headers)).to.deep.equal(strip(viaExpress));
      }),
      { numRuns: Number(process.env.FUZZ_RUNS ?? 150) },
    );
  });
  it("When POST /token is sent with form bodies on the hot path, through express and with HOT_ROUTES=off, then the status, the body and every header but Date and X-Request-Id match", async () => {
    const pair = await startPair(backend, { CORS_ORIGINS: "https://app.example" });
    const node = pair.on;
    const dev = new PageClient(node.url);
    await dev.signUp("devon");
    const app = await registerApp(dev);
    const stored = (await node.server.services.apps.byClientId(app.clientId))!;
    await node.server.services.apps.update(stored, { m2mScopes: ["jobs:run", "jobs:read"] });
    const spa = await registerPublicApp(dev);
    const good = basic(app.clientId, app.clientSecret);
    const form = "application/x-www-form-urlencoded";
    const cases: Array<{ headers: Record<string, string>; body?: string }> = [
      { headers: { authorization: good, "content-type": form }, body: "grant_type=client_credentials" },
      {
        headers: { authorization: good, "content-type": `${form}; charset=UTF-8` },
        body: "grant_type=client_credentials&scope=jobs%3Aread",
      },
      { headers: { authorization: good, "content-type": form }, body: "grant_type=client_credentials&scope=admin" },
      { headers: { authorization: good, "content-type": form }, body: "grant_type=client_credentials&scope=a&scope=b" },
      {
        headers: { authorization: basic(app.clientId, "wrong"), "content-type": form },
        body: "grant_type=client_credentials",
      },
      { headers: { authorization: good, "content-type": form }, body: "grant_type=password" },
      { headers: { authorization: good, "content-type": form }, body: "code=nope" },
      { headers: { authorization: "Basic !!", "content-type": form }, body: "grant_type=client_credentials" },
      {
        headers: { "content-type": form },
        body: `client_id=${app.clientId}&client_secret=${app.clientSecret}&grant_type=client_credentials`,
      },
      { headers: { "content-type": form }, body: "grant_type=client_credentials" },
      {
        headers: { authorization: good, "content-type": form },
        body: Array.from({ length: 60 }, (_, i) => `p${i}=1`).join("&"),
      },
      {
        headers: { authorization: good, "content-type": `${form}; charset=koi8-r` },
        body: "grant_type=client_credentials",
      },
      { headers: { authorization: good, "content-type": form }, body: "grant_type=%E0%A4%A&x=%" },
      {
        headers: { authorization: good, "content-type": "application/json" },
        body: '{"grant_type":"client_credentials"}',
      },
      { headers: { authorization: good, "content-type": "application/json" }, body: "[1]" },
      { headers: { authorization: good, "content-type": "application/json" }, body: "{" },
      { headers: { authorization: good, "content-type": "text/plain" }, body: "grant_type=client_credentials" },
      { headers: { authorization: good } },
      // A page's public client: the "public clients" CORS step answers its origin, on either way.
      {
        headers: { "content-type": form, origin: "https://spa.example" },
        body: `grant_type=authorization_code&code=nope&client_id=${spa.clientId}`,
      },
      {
        headers: { "content-type": form, origin: "https://else.example" },
        body: `grant_type=authorization_code&code=nope&client_id=${spa.clientId}`,
      },
      {
        headers: { authorization: good, "content-type": form, origin: "https://app.example" },
        body: "grant_type=client_credentials",
      },
    ];
    // Each token is new: compare its shape, not its value.
    const same = (r: TestResponse) => {
      const a = answer(r, pair);
      const body = a.body as Record<string, unknown>;
      if (typeof body?.access_token === "string") {
        expect(body.access_token).to.match(new RegExp(`^${app.clientId}\\.[A-Za-z0-9_-]{43}$`));
        body.access_token = "<token>";
      }
      return { ...a, headers: { ...a.headers, "content-length": "<length>" } };
    };
    for (const c of cases) {
      const send = (base: string, path: string) =>
        http(base, path, {
          method: "POST",
          headers: c.headers,
          ...(c.body !== undefined ? { body: Buffer.from(c.body) } : {}),
        });
      const hot = await send(node.url, "/token");
      const viaExpress = await send(node.url, "/token?");
      const off = await send(pair.off.url, "/token");
      const what = JSON.stringify(c);
      expect(same(viaExpress), what).to.deep.equal(same(hot));
      expect(same(off), `${what}, HOT_ROUTES=off`).to.deep.equal(same(hot));
      // A JSON body that does not parse fails in the middleware list, before any route (both ways).
      if (c.body !== "{") expect(hot.headers["cache-control"], what).to.equal("no-store");
      expect(hot.status, what).to.be.below(500);
    }
    const ok = await http(node.url, "/token", { method: "POST", headers: cases[0]!.headers, body: cases[0]!.body! });
    const fromSpa = await http(node.url, "/token", {
      method: "POST",
      headers: cases.at(-3)!.headers,
      body: cases.at(-3)!.body!,
    });
    expect(fromSpa.headers["access-control-allow-origin"]).to.equal("https://spa.example");
    expect(ok.json).to.include({ token_type: "Bearer", scope: "jobs:run jobs:read" });
    const metrics = (await http(node.url, "/metrics")).text;
    expect(metrics).to.match(/sigil_http_requests_total\{method="POST",route="\/token",status="200"\} \d+/);
  });
  it("When GET /auth/user is asked on the hot path, through express and with HOT_ROUTES=off, then the status, the body and every header but Date and X-Request-Id match", async () => {
    const pair = await startPair(backend, { CORS_ORIGINS: "https://app.example" });
    const node = pair.on;
    const dev = new PageClient(node.url);
    await dev.signUp("devon");
    const app = await registerApp(dev);
    const alice = new PageClient(node.url);
    await alice.signUp("alice", "password123", "Alice Liddell");
    const code = (
      await authorize(alice, { client_id: app.clientId, redirect_uri: app.redirectUri, response_type: "code" })
    ).searchParams.get("code")!;
    const t = await token(
      node.url,
      { grant_type: "authorization_code", code, redirect_uri: app.redirectUri },
      { authorization: basic(app.clientId, app.clientSecret) },
    );
    const at = t.json.access_token as string;
    const cases: Array<Record<string, string>> = [
      { authorization: `Bearer ${at}`, client_id: app.clientId },
      { authorization: at, client_id: app.clientId },
      { authorization: `Bearer ${at}`, client_id: "another-app" },
      { authorization: `Bearer ${at}` },
      { authorization: "Bearer nope", client_id: app.clientId },
      { authorization: "Basic a b", client_id: app.clientId },
      { client_id: app.clientId },
      { authorization: `Bearer ${at}`, client_id: utf8Header("ümlaut") },
      { authorization: `Bearer ${at}`, client_id: "\xff\xfe" },
    ];
    for (const headers of cases) {
      const h = { origin: "https://app.example", ...headers };
      const hot = await reach(pair, "fast", "GET", "/auth/user", h);
      // "/auth/user?" is not the hot route's exact path: express serves it, with an empty query.
      const viaExpress = await reach(pair, "query", "GET", "/auth/user", h);
      const off = await reach(pair, "off", "GET", "/auth/user", h);
      expect(answer(viaExpress), JSON.stringify(headers)).to.deep.equal(answer(hot));
      expect(answer(off, pair), `${JSON.stringify(headers)}, HOT_ROUTES=off`).to.deep.equal(answer(hot));
      expect(hot.headers["cache-control"]).to.equal("no-store");
    }
    expect(
      (await http(node.url, "/auth/user", { headers: { authorization: `Bearer ${at}`, client_id: app.clientId } })).json
        .username,
    ).to.equal("alice");
    expect(
      (await http(node.url, `/auth/user?access_token=${at}`, { headers: { client_id: app.clientId } })).status,
    ).to.equal(400);
    const metrics = (await http(node.url, "/metrics")).text;
    expect(metrics).to.match(/sigil_http_requests_total\{method="GET",route="\/auth\/user",status="200"\} \d+/);
  });
  for (const corsOrigins of ["", "https://app.example"]) {
    it(`When GET /userinfo is asked on the hot path, through express and with HOT_ROUTES=off (CORS_ORIGINS="${corsOrigins}"), then the status, the body and every header but Date and X-Request-Id match, and POST still works`, async () => {
      const pair = await startPair(backend, corsOrigins ? { CORS_ORIGINS: corsOrigins } : {});
      const node = pair.on;
      const dev = new PageClient(node.url);
      await dev.signUp("devon");
      const app = await registerApp(dev);
      const alice = new PageClient(node.url);
      await alice.signUp("alice", "password123", "Alice Liddell");
      const accessToken = async (scope: string) =>
        (await signInWith(node.url, alice, app, { scope })).json.access_token as string;
      const full = await accessToken("openid profile email");
      const bare = await accessToken("openid");
      const plain = await accessToken("profile");
      const aliceId = (
        await http(node.url, "/auth/user", {
          headers: { authorization: `Bearer ${full}`, client_id: app.clientId },
        })
      ).json.id as string;
      const cases: Array<{ headers: Record<string, string>; status: number }> = [
        { headers: { authorization: `Bearer ${full}` }, status: 200 },
        { headers: { authorization: `bearer  ${full}` }, status: 200 },
        { headers: { authorization: `Bearer ${bare}` }, status: 200 },
        { headers: { authorization: `Bearer ${plain}` }, status: 401 },
        { headers: { authorization: "Bearer nope" }, status: 401 },
        { headers: { authorization: `Bearer ${full}x` }, status: 401 },
        { headers: { authorization: full }, status: 401 },
        { headers: { authorization: `Basic ${full}` }, status: 401 },
        { headers: {}, status: 401 },
      ];
      const origins: Array<Record<string, string>> = [
        {},
        { origin: "https://app.example" },
        { origin: "https://else.example" },
      ];
      for (const origin of origins) {
        for (const c of cases) {
          const h = { ...c.headers, ...origin };
          const what = JSON.stringify(h).replaceAll(full, "<full>");
          const hot = await reach(pair, "fast", "GET", "/userinfo", h);
          // "/userinfo?" is not the hot route's exact path: express serves it, with an empty query.
          const viaExpress = await reach(pair, "query", "GET", "/userinfo", h);
          const off = await reach(pair, "off", "GET", "/userinfo", h);
          expect(answer(viaExpress), what).to.deep.equal(answer(hot));
          expect(answer(off, pair), `${what}, HOT_ROUTES=off`).to.deep.equal(answer(hot));
          expect(hot.status, what).to.equal(c.status);
          expect(hot.headers["cache-control"], what).to.equal("no-store");
          expect(hot.headers.pragma, what).to.equal("no-cache");
          if (c.status === 401) {
            expect(hot.json.error, what).to.equal("invalid_token");
            expect(hot.headers["www-authenticate"], what).to.equal('Bearer error="invalid_token"');
          }
          if (origin.origin === "https://app.example" || (!corsOrigins && origin.origin)) {
            expect(hot.headers["access-control-allow-origin"], what).to.be.a("string");
          }
        }
      }
      expect((await http(node.url, "/userinfo", { headers: { authorization: `Bearer ${full}` } })).json).to.deep.equal({
        sub: aliceId,
        name: "Alice Liddell",
        preferred_username: "alice",
        picture: `${node.url}/pictures/${aliceId}`,
      });
      expect((await http(node.url, "/userinfo", { headers: { authorization: `Bearer ${bare}` } })).json).to.deep.equal({
        sub: aliceId,
      });
      // POST stays on express, Bearer or form body (RFC 6750 §2.2); the token in the URL stays a 400.
      const posted = await http(node.url, "/userinfo", {
        method: "POST",
        headers: { "content-type": "application/x-www-form-urlencoded" },
        body: new URLSearchParams({ access_token: bare }).toString(),
      });
      expect([posted.status, posted.json]).to.deep.equal([200, { sub: aliceId }]);
      expect(posted.headers["cache-control"]).to.equal("no-store");
      const postedBearer = await http(node.url, "/userinfo", {
        method: "POST",
        headers: { authorization: `Bearer ${bare}` },
      });
      expect([postedBearer.status, postedBearer.json]).to.deep.equal([200, { sub: aliceId }]);
      const inUrl = await http(node.url, `/userinfo?access_token=${full}`);
      expect([inUrl.status, inUrl.json.error]).to.deep.equal([400, "invalid_request"]);
      // The other methods: 405 with the same Allow as before, here and on /auth/user.
      const put = await http(node.url, "/userinfo", { method: "PUT" });
      expect([put.status, put.headers.allow]).to.deep.equal([405, "GET, HEAD, POST, OPTIONS"]);
      const postUser = await http(node.url, "/auth/user", { method: "POST" });
      expect([postUser.status, postUser.headers.allow]).to.deep.equal([405, "GET, HEAD, OPTIONS"]);
      const metrics = (await http(node.url, "/metrics")).text;
      expect(metrics).to.match(/sigil_http_requests_total\{method="GET",route="\/userinfo",status="200"\} \d+/);
      expect(metrics).to.match(/sigil_http_requests_total\{method="POST",route="\/userinfo",status="200"\} 2/);
    });
  }
});
