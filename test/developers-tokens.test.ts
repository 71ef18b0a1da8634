// docs/http-api.md#developers, docs/realtime.md#custom-tokens: CUSTOM TOKENs on /developers, used as a person would (cookies, CSRF, forms):
// created and shown once, listed without values, revoked (live sockets drop), expiring, owner only.
import { expect } from "chai";
import { describeBackends } from "./support/backends.js";
import { readyClient, refusal, publishWith } from "./support/channel.js";
import { PageClient, csrfOf, decodeHtml, registerApp, type TestApp } from "./support/pages.js";
import type { TestNode } from "./support/nodes.js";
import { redisDump } from "./support/redis.js";

const SHOWN = /class="secret custom-token">([^<]+)</;

interface Row {
  id: string;
  status: string;
  name: string;
  expires: string;
}

/** The token rows of the console page. */
function rows(html: string): Row[] {
  return [...html.matchAll(/<tr data-token-id="([^"]+)" data-status="([^"]+)">(.*?)<\/tr>/gs)].map((m) => {
    const cells = [...m[3]!.matchAll(/<td[^>]*>(.*?)<\/td>/gs)].map((c) => c[1]!);
    return { id: m[1]!, status: m[2]!, name: decodeHtml(cells[0]!), expires: cells[3]!.replace(/<[^>]+>/g, "").trim() };
  });
}

describeBackends("CUSTOM TOKENs on /developers", (backend) => {
  let node: TestNode;
  let base: string;
  let dev: PageClient;
  let app: TestApp;
  beforeEach(async () => {
    node = await backend.startNode();
    base = node.url;
    dev = new PageClient(base);
    await dev.signUp("devon");
    app = await registerApp(dev);
  });

  /** Creates a token through the console form; returns the response and the value it shows. */
  async function create(fields: Record<string, string> = {}, who = dev, clientId = app.clientId) {
    const r = await who.submit("/developers", `/developers/${clientId}/tokens`, fields);
    return { r, token: SHOWN.exec(r.text)?.[1] };
  }

  const revoke = (id: string, who = dev, clientId = app.clientId) =>
    who.submit("/developers", `/developers/${clientId}/tokens/${id}/revoke`, {});

  it("When the owner creates a token, then its value is shown once and it opens the channel", async () => {
    const { r, token } = await create({ name: "worker" });
    expect(r.status).to.equal(201);
    expect(r.headers.location).to.equal(undefined);
    expect(r.headers["cache-control"]).to.equal("no-store");
    expect(token).to.be.a("string");
    const c = await readyClient(base, { token: token! });
    expect(c.readies[0]!.app).to.equal(app.clientId);

    const page = await dev.get("/developers");
    expect(page.text).to.not.contain(token!);
    const [row] = rows(page.text);
    expect(row).to.include({ name: "worker", status: "active", expires: "never" });
    expect(node.logs.join("\n")).to.not.contain(token!);
    if (backend.redis) expect(redisDump(backend.redis)).to.not.contain(token!); // no key or value: nor the session, nor a flash
  });

  it("When the owner creates a token that may publish, limited to two channels, then it publishes there only; one made without may not publish", async () => {
    const { r, token } = await create({ name: "backend", publish: "1", channels: " news\nuser:1  " });
    expect(r.status).to.equal(201);
    const send = (t: string, channel: string) => publishWith(base, t, { channel, data: 1 });
    expect((await send(token!, "user:1")).status).to.equal(200);
    expect((await send(token!, "other")).json.error).to.equal("forbidden");
    const plain = (await create({ name: "reader" })).token!;
    expect((await send(plain, "news")).json.error).to.equal("forbidden");
  });

  it("When the token form's address is fetched or malformed, then it is 405 or 400, never 5xx", async () => {
    const get = await dev.get(`/developers/${app.clientId}/tokens`);
    expect(get.status).to.equal(405);
    expect(get.headers.allow).to.equal("POST, OPTIONS");
    const page = await dev.get("/developers");
    for (const path of [`/developers/%E0%A4%A/tokens`, `/developers/${app.clientId}/tokens/%E0%A4%A/revoke`]) {
      const bad = await dev.post(path, { _csrf: csrfOf(page.text) });
      expect(bad.status).to.equal(400);
      expect(bad.text).to.contain("The address could not be read.");
    }
  });

  it("When the owner revokes a token, then its live socket drops within 1 s and a reconnect is refused", async () => {
    const { token } = await create({ name: "doomed" });
    const c = await readyClient(base, { token: token! });
    const [row] = rows((await dev.get("/developers")).text);
    const r = await revoke(row!.id);
    expect(r.status).to.equal(303);
    expect(r.headers.location).to.equal("/developers");
    await c.waitDisconnect(1000);
    expect((await refusal(base, { token: token! })).message).to.equal("invalid_token");
    const page = await dev.get("/developers");
    expect(rows(page.text)[0]!.status).to.equal("revoked");
    expect(page.text).to.not.contain(`/tokens/${row!.id}/revoke`);
  });

  it("When a token is created with an expiry, then it is listed and refused once it passes", async () => {
    const before = Date.now();
    const day = await create({ name: "day", expires_in: "86400" });
    const dayExp = Date.parse(rows((await dev.get("/developers")).text)[0]!.expires);
    expect(dayExp).to.be.within(Math.floor(before / 1000) * 1000 + 86400e3, Date.now() + 86400e3);
    expect(day.token).to.be.a("string");

    // The form offers hours and more; any whole number of seconds is taken (as with the CLI).
    const { r, token } = await create({ name: "brief", expires_in: "2" });
    expect(r.status).to.equal(201);
    const c = await readyClient(base, { token: token! });
    await c.waitDisconnect(3000);
    expect((await refusal(base, { token: token! })).message).to.equal("invalid_token");
    const brief = rows((await dev.get("/developers")).text).find((x) => x.name === "brief")!;
    expect(brief.status).to.equal("expired");
  });

  for (const [what, fields] of [
    ["an expiry that is not a number", { expires_in: "soon" }],
    ["a zero expiry", { expires_in: "0" }],
    ["a negative expiry", { expires_in: "-60" }],
    ["a fractional expiry", { expires_in: "1.5" }],
    ["an expiry beyond ten years", { expires_in: "400000000" }],
    ["a name of 65 characters", { name: "x".repeat(65) }],
    ["a channel name with a bad character", { channels: "news user|1" }],
  ] as Array<[string, Record<string, string>]>) {
    it(`When the form has ${what}, then it is refused with 400 and no token exists`, async () => {
      const { r, token } = await create(fields);
      expect(r.status).to.equal(400);
      expect(r.text).to.contain('class="error"');
      expect(token).to.equal(undefined);
      expect(rows((await dev.get("/developers")).text)).to.have.length(0);
    });
  }

  it("When another user tries to create, list or revoke, then the app does not exist for them", async () => {
    const { token } = await create({ name: "mine" });
    const [row] = rows((await dev.get("/developers")).text);
    const eve = new PageClient(base);
    await eve.signUp("eve");

    const made = await create({ name: "evil" }, eve);
    const unknown = await create({ name: "evil" }, eve, "no-such-app-000");
    expect(made.r.status).to.equal(404);
    expect(made.token).to.equal(undefined);
    expect(made.r.text).to.not.contain(app.clientId);
    expect(unknown.r.status).to.equal(404);
    expect(made.r.text.replace(/value="[^"]+"/g, "")).to.equal(unknown.r.text.replace(/value="[^"]+"/g, ""));

    const listing = await eve.get("/developers");
    expect(listing.text).to.not.contain(row!.id);
    expect(listing.text).to.not.contain("mine");

    expect((await revoke(row!.id, eve)).status).to.equal(404);
    expect((await readyClient(base, { token: token! })).readies[0]!.app).to.equal(app.clientId);
    expect(rows((await dev.get("/developers")).text).map((x) => x.name)).to.deep.equal(["mine"]);
  });

  it("When the owner revokes an id the app does not have, then it is 404", async () => {
    expect((await revoke("nope")).status).to.equal(404);
    expect((await revoke("bad%20id%3Cx%3E")).status).to.equal(404);
  });

  it("When the CSRF token is missing or wrong, then create and revoke are 403 and nothing changes", async () => {
    const { token } = await create({ name: "kept" });
    const [row] = rows((await dev.get("/developers")).text);
    for (const csrf of [{}, { _csrf: "forged" }] as Array<Record<string, string>>) {
      expect((await dev.post(`/developers/${app.clientId}/tokens`, { name: "x", ...csrf })).status).to.equal(403);
      expect((await dev.post(`/developers/${app.clientId}/tokens/${row!.id}/revoke`, csrf)).status).to.equal(403);
    }
    const after = rows((await dev.get("/developers")).text);
    expect(after.map((x) => [x.name, x.status])).to.deep.equal([["kept", "active"]]);
    await readyClient(base, { token: token! });
  });

  it("When a token name holds HTML, then it is shown as text", async () => {
    const name = `<script>alert(1)</script>`;
    const { r } = await create({ name });
    expect(r.text).to.not.contain(name);
    expect(r.text).to.contain("&lt;script>alert(1)&lt;/script>");
    const page = await dev.get("/developers");
    expect(page.text).to.not.contain(name);
    expect(rows(page.text)[0]!.name).to.equal(name);
  });

  it("When the app is deleted, then its tokens' live sockets drop and the tokens are refused", async () => {
    const { token } = await create({ name: "orphan" });
    const c = await readyClient(base, { token: token! });
    const page = await dev.get("/developers");
    expect((await dev.post(`/developers/${app.clientId}/delete`, { _csrf: csrfOf(page.text) })).status).to.equal(303);
    await c.waitDisconnect(1000);
    expect((await refusal(base, { token: token! })).message).to.equal("invalid_token");
  });

  it("When a signed-out visitor posts the form, then they are sent to sign in and nothing is created", async () => {
    const anon = new PageClient(base);
    const r = await anon.submit("/signin", `/developers/${app.clientId}/tokens`, { name: "x" });
    expect(r.status).to.equal(303);
    expect(r.headers.location).to.equal("/signin");
    expect(rows((await dev.get("/developers")).text)).to.have.length(0);
  });
});
