// Identity events to an app's CUSTOM TOKEN sockets (docs/events.md#on-the-apps-sockets): what
// happens to a user who consented to the app — a withdrawn consent, a sign-out, disabling and
// deleting the account, from the pages or the CLI — reaches the app's sockets on every node as
// `identity {type, sub, at}`; an app the user never consented to hears nothing.
import { expect } from "chai";
import { describeBackends, type Backend } from "./support/backends.js";
import { channelClient, type ChannelClient } from "./support/channel.js";
import { sigil } from "./support/cli.js";
import { PageClient, authorize, registerApp, type TestApp } from "./support/pages.js";
import type { TestNode } from "./support/nodes.js";
import { waitFor } from "./support/wait.js";
import type { IdentityEvent } from "../src/protocol.js";

/** A socket of the app's that records its identity events. */
async function listener(url: string, token: string) {
  const c: ChannelClient = channelClient(url, { token });
  const got: IdentityEvent[] = [];
  c.socket.on("identity", (e) => got.push(e));
  await c.waitReady();
  return {
    got,
    /** Waits for an event of this type, and resolves with every event before it and it. */
    until: (type: IdentityEvent["type"]) =>
      waitFor(`identity ${type}`, () => (got.some((e) => e.type === type) ? [...got] : undefined), {
        ms: 10_000,
        everyMs: 5,
        seen: () => JSON.stringify(got),
      }),
  };
}

describeBackends("Identity events to an app's sockets", (backend: Backend) => {
  let nodes: TestNode[];
  let app: TestApp;
  let other: TestApp;
  let una: PageClient;
  let sub: string;
  beforeEach(async () => {
    // Two nodes on one Redis; the embedded store has one server.
    nodes =
      backend.name === "redis" ? [await backend.startNode(), await backend.startNode()] : [await backend.startNode()];
    const [a] = nodes as [TestNode];
    const dev = new PageClient(a.url);
    await dev.signUp("devon");
    app = await registerApp(dev, ["https://app.example/cb"], "App");
    other = await registerApp(dev, ["https://other.example/cb"], "Other");
    una = new PageClient(a.url);
    await una.signUp("una");
    sub = (await a.server.services.accounts.byUsername("una"))!.id;
  });

  const consent = () =>
    authorize(una, { response_type: "code", client_id: app.clientId, redirect_uri: app.redirectUri, scope: "openid" });
  /** A socket on every node for the app, and one for the other app. */
  async function sockets() {
    const [a] = nodes as [TestNode];
    const { token } = await a.server.customTokens.create({ app: app.clientId });
    const { token: otherToken } = await a.server.customTokens.create({ app: other.clientId });
    return {
      mine: await Promise.all(nodes.map((n) => listener(n.url, token))),
      theirs: await listener(nodes.at(-1)!.url, otherToken),
    };
  }

  it("When a user withdraws consent (50 times at once) and signs out, then the app's sockets on every node hear each once, and another app hears nothing", async () => {
    const { mine, theirs } = await sockets();
    await consent();
    const withdraw = () => una.submit("/account", "/account/consents/withdraw", { client_id: app.clientId });
    const [first] = await Promise.all(Array.from({ length: 50 }, withdraw));
    expect(first!.status).to.equal(303);
    // A consent again, then a sign-out: the marker that everything before it has arrived.
    await consent();
    expect((await una.submit("/account", "/signout", {})).status).to.equal(303);
    for (const s of mine) {
      const got = await s.until("session.ended");
      expect(got.map((e) => e.type)).to.deep.equal(["consent.withdrawn", "session.ended"]);
      for (const e of got) {
        expect(e.sub).to.equal(sub);
        expect(Date.parse(e.at)).to.be.closeTo(Date.now(), 10_000);
      }
    }
    expect(theirs.got).to.deep.equal([]);
  });

  it("When another browser is signed out from /account, and an operator resets the password, then the app hears session.ended for each; with no session left to end, nothing", async () => {
    const { mine } = await sockets();
    await consent();
    const phone = new PageClient(nodes[0]!.url);
    expect(
      (await phone.submit("/signin", "/signin", { username: "una", password: "correct horse battery" })).status,
    ).to.equal(303);
    expect((await una.submit("/account", "/account/sessions/signout-others", {})).status).to.equal(303);
    const cli = (...args: string[]) => sigil({ ...backend.env(), SECRET: nodes[0]!.config.secret }, "users", ...args);
    expect((await cli("reset-password", "--username", "una", "--password", "another horse battery")).code).to.equal(0);
    // Every session is gone now: a second reset ends none, and tells nothing; the marker follows.
    expect((await cli("reset-password", "--username", "una", "--password", "a third horse battery")).code).to.equal(0);
    expect((await cli("disable", "--username", "una")).code).to.equal(0);
    for (const s of mine) {
      const got = await s.until("user.disabled");
      expect(got.map((e) => e.type)).to.deep.equal(["session.ended", "session.ended", "user.disabled"]);
    }
  });

  it("When `sigil users disable` and `users delete` run beside the nodes, then the app's sockets hear user.disabled, then user.deleted, once each", async () => {
    const { mine } = await sockets();
    await consent();
    const cli = (...args: string[]) => sigil({ ...backend.env(), SECRET: nodes[0]!.config.secret }, "users", ...args);
    expect((await cli("disable", "--username", "una")).code).to.equal(0);
    expect((await cli("delete", "--username", "una")).code).to.equal(0);
    for (const s of mine) {
      const got = await s.until("user.deleted");
      expect(got.map((e) => [e.type, e.sub])).to.deep.equal([
        ["user.disabled", sub],
        ["user.deleted", sub],
      ]);
    }
  });
});
