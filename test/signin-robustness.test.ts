// docs/errors.md for the sign-in half: bad input never yields a 5xx or changes data; a store that
// cannot be reached is a fast 503 (HTML on pages, JSON on the API).
import { expect } from "chai";
import { describeBackends } from "./support/backends.js";
import { http } from "./support/http.js";
import { startNode, type TestNode } from "./support/nodes.js";
import { TestRedis, requireRedis } from "./support/redis.js";
import { PageClient, basic, csrfOf, registerApp } from "./support/pages.js";

describeBackends("Sign-in under bad input", (backend) => {
  let base: string;
  beforeEach(async () => {
    base = (await backend.startNode()).url;
  });

  it("When odd requests hit the sign-in endpoints, then none of them is a 5xx", async () => {
    const dev = new PageClient(base);
    await dev.signUp("devon");
    const app = await registerApp(dev);
    const form = { "content-type": "application/x-www-form-urlencoded" };
    const json = { "content-type": "application/json" };
    const cases: Array<[string, string, Record<string, string>, string?]> = [
      ["GET", `/authorize?client_id=${app.clientId}&client_id=x`, {}],
      ["GET", `/authorize?client_id[a]=1`, {}],
      ["GET", `/authorize?client_id=${"x".repeat(5000)}`, {}],
      ["GET", `/authorize?client_id=${app.clientId}&state=${"s".repeat(3000)}`, {}],
      ["GET", "/authorize?client_id=%ff%fe", {}],
      ["POST", "/token", json, "[1,2,3]"],
      ["POST", "/token", json, '{"code": 5, "client_id": {"a": 1}}'],
      ["POST", "/token", json, "{not json"],
      ["POST", "/token", form, "code=a&code=b&client_id=x&client_secret=y"],
      ["POST", "/token", { ...form, authorization: "Basic !!!" }, "code=a"],
      ["POST", "/token", { ...form, authorization: basic("a".repeat(300), "b") }, "code=a"],
      ["POST", "/token", { ...form, authorization: `Basic ${Buffer.from("nocolon").toString("base64")}` }, "code=a"],
      ["POST", "/token", { ...form, authorization: `Basic ${Buffer.from("%zz:%zz").toString("base64")}` }, "code=a"],
      ["POST", "/token", form, `code=${"c".repeat(60000)}&client_id=${app.clientId}&client_secret=${app.clientSecret}`],
      ["POST", "/token", form, "x=" + "y".repeat(70 * 1024)],
      ["GET", "/token", {}],
      ["GET", "/auth/user", { authorization: "Bearer a b c", client_id: app.clientId }],
      ["GET", "/auth/user", { authorization: `Bearer ${"t".repeat(5000)}`, client_id: "c".repeat(5000) }],
      ["GET", "/pictures/..%2F..%2Fetc", {}],
      ["GET", "/pictures/00000000-0000-0000-0000-000000000000", {}],
      ["POST", "/signin", form, "username[]=a&password[x]=b"],
      ["POST", "/signup", form, "x=" + "y".repeat(70 * 1024)],
      ["POST", "/account", { "content-type": "multipart/form-data; boundary=zzz" }, "--zzz\r\nbroken"],
      ["PUT", "/signin", {}],
      ["DELETE", "/authorize", {}],
    ];
    for (const [method, path, headers, body] of cases) {
      const r = await http(base, path, { method, headers, ...(body !== undefined ? { body } : {}) });
      expect(r.status, `${method} ${path.slice(0, 60)} → ${r.status} ${r.text.slice(0, 200)}`).to.be.within(200, 499);
    }
  });

  it("When a page form is over 64 KB, then it is 413", async () => {
    const c = new PageClient(base);
    const page = await c.get("/signup");
    const r = await c.post("/signup", {
      _csrf: csrfOf(page.text),
      username: "big",
      password: "password123",
      display_name: "x".repeat(70 * 1024),
    });
    expect(r.status).to.equal(413);
  });
});

describe("Sign-in when Redis is away", function () {
  let redis: TestRedis;
  let node: TestNode;
  before(async function () {
    requireRedis(this);
    redis = await TestRedis.start();
    node = await startNode({ redisUrl: redis.url });
  });
  after(async () => {
    await node?.close();
    await redis?.destroy();
  });

  it("When the store cannot be reached, then pages and API answer 503 with Retry-After, quickly", async () => {
    const c = new PageClient(node.url);
    await c.signUp("rita");
    // An anonymous form needs no store (its CSRF token is stateless); posting it does.
    const anon = new PageClient(node.url);
    const form = csrfOf((await anon.get("/signin")).text);
    await redis.stop("SIGKILL");
    const started = Date.now();
    for (const r of [
      await c.get("/account"),
      await anon.post("/signin", { _csrf: form, username: "rita", password: "correct horse battery" }),
      await http(node.url, "/token", {
        method: "POST",
        headers: { "content-type": "application/x-www-form-urlencoded" },
        body: "code=a&client_id=b&client_secret=c",
      }),
      await http(node.url, "/auth/user", { headers: { authorization: "Bearer x", client_id: "y" } }),
    ]) {
      expect(r.status, r.text.slice(0, 200)).to.equal(503);
      expect(r.headers["retry-after"]).to.match(/^\d+$/);
    }
    expect(Date.now() - started).to.be.below(8000);
  });
});
