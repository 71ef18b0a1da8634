// docs/errors.md: every error of the JSON API in one format; bad input never gets a 5xx.
import { expect } from "chai";
import { request } from "node:http";
import { connect } from "node:net";
import { describeBackends } from "./support/backends.js";
import { call, readyClient } from "./support/channel.js";
import { challengeApi, http, type TestResponse } from "./support/http.js";
import { startNode, type TestNode } from "./support/nodes.js";
import { PageClient, csrfOf, registerApp } from "./support/pages.js";
import { requireRedis, TestRedis } from "./support/redis.js";
import type { Store } from "../src/store/port.js";

function rawRequest(base: string, bytes: string): Promise<string> {
  const u = new URL(base);
  return new Promise((resolve, reject) => {
    const s = connect(Number(u.port), u.hostname, () => s.end(bytes));
    let out = "";
    s.on("data", (d) => (out += d.toString("latin1")));
    s.on("end", () => resolve(out));
    s.on("error", reject);
  });
}

const expectContractError = (r: { headers: Record<string, unknown>; json: any }, error: string) => {
  expect(r.headers["content-type"]).to.match(/^application\/json/);
  expect(r.json.error).to.equal(error);
  expect(r.json.error_description).to.be.a("string").and.not.be.empty;
  expect(Object.keys(r.json).sort()).to.deep.equal(["error", "error_description"]);
};

describeBackends("HTTP errors", (backend) => {
  let base: string;
  beforeEach(async () => (base = (await backend.startNode()).url));

  it("When a path parameter is not valid percent-encoding, then 400 invalid_request", async () => {
    const r = await http(base, "/pictures/%E0%A4%A");
    expect(r.status).to.equal(400);
    expectContractError(r, "invalid_request");
  });

  it("When a route is unknown, then 404 not_found", async () => {
    const r = await http(base, "/no/such/thing");
    expect(r.status).to.equal(404);
    expectContractError(r, "not_found");
  });

  it("When a known path gets the wrong method, then 405 with Allow in the error format", async () => {
    const r = await http(base, "/challenge/new", { method: "GET" });
    expect(r.status).to.equal(405);
    expect(r.headers.allow).to.include("POST");
    expectContractError(r, "method_not_allowed");
  });

  it("When a body is over 64 KB, then 413 request_too_large", async () => {
    const r = await http(base, "/challenge/new", {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ question: "x".repeat(70 * 1024), answer: "a" }),
    });
    expect(r.status).to.equal(413);
    expectContractError(r, "request_too_large");
  });

  it("When headers are over 16 KB in all, then 431 request_too_large in JSON", async () => {
    const r = await rawRequest(base, `GET /healthz HTTP/1.1\r\nHost: x\r\nx-big: ${"a".repeat(17 * 1024)}\r\n\r\n`);
    expect(r).to.match(/^HTTP\/1\.1 431 /);
    expect(r).to.include("application/json");
    expect(JSON.parse(r.slice(r.indexOf("\r\n\r\n") + 4)).error).to.equal("request_too_large");
  });

  it("When the bytes are not HTTP at all, then the server answers a bare 400 and stays up", async () => {
    const r = await rawRequest(base, "HELLO THERE\r\n\r\n");
    expect(r).to.match(/^HTTP\/1\.1 400 /);
    expect((await http(base, "/healthz")).status).to.equal(200);
  });

  it("When JSON is malformed or deeply nested, then 400 invalid_request, never a 5xx", async () => {
    for (const body of ["{", '{"a":', "nul", "[".repeat(5000) + "]".repeat(5000)]) {
      const r = await http(base, "/challenge/new", {
        method: "POST",
        headers: { "content-type": "application/json" },
        body,
      });
      expect(r.status, body.slice(0, 10)).to.equal(400);
      expectContractError(r, "invalid_request");
    }
  });

  it("When a field has the wrong type in the body, then 400 invalid_request", async () => {
    for (const body of [
      { question: 1, answer: "a" },
      { question: "q", answer: ["a"] },
      { question: "q", answer: "a", ttl: "x" },
      { question: "q", answer: "a", ttl: 90.5 },
    ]) {
      const r = await http(base, "/challenge/new", {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify(body),
      });
      expect(r.status, JSON.stringify(body)).to.equal(400);
      expectContractError(r, "invalid_request");
    }
  });

  it("When a body comes with an unsupported charset, then 400 invalid_request, never a 5xx", async () => {
    const r = await http(base, "/challenge/new", {
      method: "POST",
      headers: { "content-type": "application/json; charset=klingon" },
      body: "{}",
    });
    expect(r.status).to.equal(400);
    expectContractError(r, "invalid_request");
  });

  it("When a body's Content-Encoding is unknown or does not match its bytes, then 400 invalid_request on every JSON endpoint", async () => {
    const key = await challengeApi(base).createKey("q", "a");
    const cases: Array<[string, string, string]> = [
      ["/challenge/new", "application/json", JSON.stringify({ question: "q", answer: "a" })],
      ["/challenge/solve", "application/json", JSON.stringify({ key, a: "a" })],
      ["/token", "application/json", JSON.stringify({ code: "x", client_id: "y" })],
      ["/token", "application/x-www-form-urlencoded", "code=x&client_id=y"],
    ];
    for (const [path, type, body] of cases) {
      for (const encoding of ["gzip", "deflate", "br", "x-gzip", "nope", "gzip, nope"]) {
        const r = await http(base, path, {
          method: "POST",
          headers: { "content-type": type, "content-encoding": encoding },
          body,
        });
        expect(r.status, `${path} ${type} ${encoding}: ${r.text}`).to.equal(400);
        expectContractError(r, "invalid_request");
      }
      const charset = await http(base, path, {
        method: "POST",
        headers: { "content-type": `${type}; charset=klingon` },
        body,
      });
      expect(charset.status, `${path} ${type} charset=klingon: ${charset.text}`).to.equal(400);
      expectContractError(charset, "invalid_request");
    }
    // An empty body that claims to be gzip (the hot path would otherwise not look at it).
    const empty = await http(base, "/challenge/solve", {
      method: "POST",
      headers: { "content-type": "application/json", "content-encoding": "gzip", key, a: "a" },
    });
    expect(empty.status, empty.text).to.equal(400);
    expectContractError(empty, "invalid_request");
  });

  it("When a page form's body cannot be read (Content-Encoding, charset), then a 400 page, never a 415 or 5xx", async () => {
    const dev = new PageClient(base);
    await dev.signUp("devon");
    const app = await registerApp(dev);
    const anon = new PageClient(base);
    const anonCsrf = csrfOf((await anon.get("/signin")).text);
    const devCsrf = csrfOf((await dev.get("/account")).text);
    const forms: Array<[PageClient, string, string]> = [
      [anon, "/signin", `_csrf=${encodeURIComponent(anonCsrf)}&username=alice&password=correct+horse`],
      [anon, "/signup", `_csrf=${encodeURIComponent(anonCsrf)}&username=alice&password=correct+horse`],
      [dev, "/account", `_csrf=${encodeURIComponent(devCsrf)}&display_name=Changed`],
      [dev, "/developers", `_csrf=${encodeURIComponent(devCsrf)}&name=Other&redirect_uri=https%3A%2F%2Fo.example%2Fcb`],
      [
        dev,
        `/authorize?client_id=${app.clientId}&redirect_uri=${encodeURIComponent(app.redirectUri)}`,
        `_csrf=${encodeURIComponent(devCsrf)}&decision=allow`,
      ],
    ];
    const post = (c: PageClient, path: string, headers: Record<string, string>, body: string) =>
      http(base, path, {
        method: "POST",
        headers: { cookie: [...c.cookies].map(([k, v]) => `${k}=${v}`).join("; "), ...headers },
        body,
      });
    for (const [client, path, body] of forms) {
      const form = "application/x-www-form-urlencoded";
      for (const headers of <Array<Record<string, string>>>[
        { "content-type": form, "content-encoding": "gzip" },
        { "content-type": form, "content-encoding": "br" },
        { "content-type": form, "content-encoding": "nope" },
        { "content-type": `${form}; charset=klingon` },
      ]) {
        const r = await post(client, path, headers, body);
        expect(r.status, `${path} ${JSON.stringify(headers)}: ${r.text.slice(0, 200)}`).to.equal(400);
        expect(r.headers["content-type"], path).to.match(/^text\/html/);
      }
      // JSON is read before any page sees it: the API's error.
      const json = await post(
        client,
        path,
        { "content-type": "application/json", "content-encoding": "deflate" },
        "{}",
      );
      expect(json.status, `${path} JSON deflate: ${json.text.slice(0, 200)}`).to.equal(400);
    }
    // Nothing changed: the display name and the apps are the same.
    expect((await dev.get("/account")).text).to.not.contain("Changed");
    expect((await dev.get("/developers")).text).to.not.contain("Other");
  });

  it("When a picture upload claims a Content-Encoding, then 400 and nothing is stored", async () => {
    const c = new PageClient(base);
    await c.signUp("liam");
    const csrf = csrfOf((await c.get("/account")).text);
    const boundary = "----sigiltest";
    const body = Buffer.from(
      `--${boundary}\r\nContent-Disposition: form-data; name="_csrf"\r\n\r\n${csrf}\r\n` +
        `--${boundary}\r\nContent-Disposition: form-data; name="display_name"\r\n\r\nEncoded Name\r\n--${boundary}--\r\n`,
    );
    const cookie = [...c.cookies].map(([k, v]) => `${k}=${v}`).join("; ");
    const r = await http(base, "/account", {
      method: "POST",
      headers: { cookie, "content-type": `multipart/form-data; boundary=${boundary}`, "content-encoding": "gzip" },
      body,
    });
    expect(r.status, r.text.slice(0, 200)).to.equal(400);
    expect((await c.get("/account")).text).to.not.contain("Encoded Name");
  });

  it("When a request expects something other than 100-continue, then 417 expectation_failed in JSON", async () => {
    const raw = await rawRequest(
      base,
      `POST /challenge/new HTTP/1.1\r\nHost: x\r\nExpect: nope\r\nContent-Type: application/json\r\nContent-Length: 2\r\n\r\n{}`,
    );
    expect(raw).to.match(/^HTTP\/1\.1 417 /);
    expect(raw.toLowerCase()).to.include("content-type: application/json");
    const body = JSON.parse(raw.slice(raw.indexOf("\r\n\r\n") + 4));
    expect(body.error).to.equal("expectation_failed");
    expect(Object.keys(body).sort()).to.deep.equal(["error", "error_description"]);
    expect(
      (await http(base, "/challenge/new", { method: "POST", headers: { expect: "nope", question: "q", answer: "a" } }))
        .json.error,
    ).to.equal("expectation_failed");
    // 100-continue still works: the server asks for the body, then answers.
    const u = new URL(base);
    const created = await new Promise<{ status: number; text: string }>((resolve, reject) => {
      const req = request({
        host: u.hostname,
        port: u.port,
        path: "/challenge/new",
        method: "POST",
        agent: false,
        headers: { expect: "100-continue", "content-type": "application/json" },
      });
      req.on("continue", () => req.end(JSON.stringify({ question: "q", answer: "a" })));
      req.on("response", (res) => {
        let text = "";
        res.on("data", (d: Buffer) => (text += d.toString()));
        res.on("end", () => resolve({ status: res.statusCode ?? 0, text }));
      });
      req.on("error", reject);
    });
    expect(created.status, created.text).to.equal(201);
  });

  it("When a browser preflights a challenge call, then CORS allows the documented headers", async () => {
    const r = await http(base, "/challenge/solve", {
      method: "OPTIONS",
      headers: {
        origin: "https://app.example",
        "access-control-request-method": "POST",
        "access-control-request-headers": "key, a, content-type",
      },
    });
    expect(r.status).to.equal(204);
    expect(r.headers["access-control-allow-origin"]).to.equal("*");
    const allowed = String(r.headers["access-control-allow-headers"]).toLowerCase();
    for (const h of ["question", "answer", "key", "a", "ttl", "authorization", "client_id", "content-type"]) {
      expect(allowed).to.include(h);
    }
  });

  it("When a browser reads a 429, then Retry-After is exposed to it", async () => {
    const key = await challengeApi(base).createKey("q", "a");
    const r = await http(base, "/challenge/q", { headers: { key, origin: "https://app.example" } });
    expect(String(r.headers["access-control-expose-headers"])).to.include("Retry-After");
  });
});

describeBackends(
  "CORS origins setting",
  (backend) => {
    it("When CORS_ORIGINS lists origins, then only those are allowed", async () => {
      const { url } = await backend.startNode({ CORS_ORIGINS: "https://good.example" });
      const pre = (origin: string) =>
        http(url, "/challenge/new", {
          method: "OPTIONS",
          headers: { origin, "access-control-request-method": "POST", "access-control-request-headers": "question" },
        });
      expect((await pre("https://good.example")).headers["access-control-allow-origin"]).to.equal(
        "https://good.example",
      );
      expect((await pre("https://evil.example")).headers["access-control-allow-origin"]).to.equal(undefined);
    });
  },
  ["memory"],
);

/** Every log line the node wrote at warn or above for one request id. */
const problemLines = (node: TestNode, reqId: string) =>
  node.logs
    .map((l) => JSON.parse(l) as Record<string, any>)
    .filter((l) => l.reqId === reqId && (l.level === "error" || l.level === "warn" || l.level === "fatal"));

describe("HTTP errors: every 5xx is logged once", () => {
  // A store that fails as a Redis client can: an error carrying the command and its arguments
  // (ioredis attaches them), which hold request data that must stay out of the log.
  const MARKER = "args-marker-s3cret";
  const broken = (store: Store): Store => {
    const failing = <T extends object>(part: T): T =>
      new Proxy(part, {
        get(target, prop, receiver) {
          const v = Reflect.get(target, prop, receiver);
          if (typeof v !== "function") return v;
          return async (...args: unknown[]) => {
            throw Object.assign(new Error("ERR the store broke"), {
              name: "ReplyError",
              command: { name: "evalsha", args: [MARKER, ...args.map((a) => JSON.stringify(a))] },
            });
          };
        },
      });
    return new Proxy(store, {
      get(target, prop, receiver) {
        const v = Reflect.get(target, prop, receiver);
        return prop === "challenges" || prop === "accounts" ? failing(v as object) : v;
      },
    });
  };

  let node: TestNode;
  before(async () => (node = await startNode({ wrapStore: broken })));
  after(() => node.close());

  const expectOneLine = (r: TestResponse, reqId: string, status: number, what: string) => {
    expect(r.status, `${what}: ${r.text.slice(0, 200)}`).to.equal(status);
    expect(r.headers["x-request-id"], what).to.equal(reqId);
    expect(r.text, what).to.not.match(/the store broke|ReplyError|evalsha|at .*\.ts/);
    const lines = problemLines(node, reqId);
    expect(lines, `${what}: ${JSON.stringify(lines)}`).to.have.length(1);
    expect(lines[0]!.level, what).to.equal("error");
    expect(lines[0]!.cause?.message, what).to.equal("ERR the store broke");
    expect(JSON.stringify(lines[0]), what).to.not.contain(MARKER);
  };

  it("When a request meets an unexpected error, then 500 server_error without detail, and one log line with the request id and the cause", async () => {
    const hot = await http(node.url, "/challenge/new", {
      method: "POST",
      headers: { question: "q", answer: "a", "x-request-id": "hot-500" },
    });
    expectOneLine(hot, "hot-500", 500, "the hot path");
    expect(hot.json).to.deep.equal({ error: "server_error", error_description: "Something went wrong on our side." });
    const viaExpress = await http(node.url, "/challenge/new", {
      method: "POST",
      headers: { "content-type": "application/json", "x-request-id": "express-500" },
      body: JSON.stringify({ question: "q", answer: "a" }),
    });
    expectOneLine(viaExpress, "express-500", 500, "express");
    expect(viaExpress.json).to.deep.equal({
      error: "server_error",
      error_description: "Something went wrong on our side.",
    });
    const q = await http(node.url, "/challenge/q", {
      headers: { key: "7d444840-9dc0-11d1-b245-5ffdce74fad2", "x-request-id": "q-500" },
    });
    expectOneLine(q, "q-500", 500, "GET /challenge/q");
  });

  it("When a socket event meets an unexpected error, then the ack is server_error without detail, and one log line with the socket's id, the event and the cause", async () => {
    const { token } = await node.server.customTokens.create({ app: "test-app", name: "logs" });
    const c = await readyClient(node.url, { token });
    const ack = await call<Record<string, unknown>>(c, "challenge:new", { question: "q", answer: "a" });
    expect(ack).to.deep.equal({ error: "server_error", error_description: "Something went wrong on our side." });
    const lines = problemLines(node, c.socket.id!);
    expect(lines, JSON.stringify(lines)).to.have.length(1);
    expect(lines[0]!.level).to.equal("error");
    expect(lines[0]!.event).to.equal("challenge:new");
    expect(lines[0]!.status).to.equal(500);
    expect(lines[0]!.cause?.message).to.equal("ERR the store broke");
    expect(JSON.stringify(lines[0])).to.not.contain(MARKER);
  });

  it("When a page meets an unexpected error, then a 500 page without detail, and one log line with the request id and the cause", async () => {
    const c = new PageClient(node.url);
    const csrf = csrfOf((await c.get("/signup")).text);
    const r = await c.post(
      "/signup",
      { _csrf: csrf, username: "alice", password: "correct horse battery" },
      { "x-request-id": "page-500" },
    );
    expectOneLine(r, "page-500", 500, "POST /signup");
    expect(r.text).to.not.contain("correct horse battery");
    expect(node.logs.join("\n")).to.not.contain("correct horse battery");
  });
});

describe("HTTP errors: a 503 is logged once with its cause", () => {
  it("When Redis is away, then /readyz and the API answer 503, each logged once with the request id and the cause", async function () {
    requireRedis(this);
    this.timeout(30_000);
    const redis = await TestRedis.start();
    const node = await startNode({ redisUrl: redis.url });
    try {
      await redis.stop();
      for (const [path, headers, reqId] of [
        ["/readyz", {}, "readyz-503"],
        ["/challenge/q", { key: "7d444840-9dc0-11d1-b245-5ffdce74fad2" }, "q-503"],
      ] as Array<[string, Record<string, string>, string]>) {
        const r = await http(node.url, path, { headers: { ...headers, "x-request-id": reqId } });
        expect(r.status, `${path}: ${r.text}`).to.equal(503);
        expectContractError(r, "unavailable");
        const lines = problemLines(node, reqId);
        expect(lines, `${path}: ${JSON.stringify(lines)}`).to.have.length(1);
        expect(lines[0]!.status, path).to.equal(503);
        // The cause (what failed underneath), not the answer's own words.
        expect(lines[0]!.cause?.message, `${path}: the cause`)
          .to.be.a("string")
          .and.not.equal(r.json.error_description);
      }
    } finally {
      await node.close();
      await redis.destroy();
    }
  });
});
