// The bundled client's users' connections (client/README.md#a-users-connection): a page signed in
// with the app connects with `accessToken` (a string, or a function for refreshed tokens), gets its
// own channel's messages, and is told when the service ends it: `expired` reconnects with the
// token the function gives then; `revoked` is final (`error`).
import { expect } from "chai";
import { createClient, type EndedEvent, type MessageEvent, type RealtimeConnection } from "../client/src/index.js";
import { describeBackends } from "./support/backends.js";
import { record } from "./support/client-realtime.js";
import type { TestNode } from "./support/nodes.js";
import type { TestApp } from "./support/pages.js";
import { liveApp, publishAsApp, revokeAsApp, signInTo, type SignedIn } from "./support/user-sockets.js";

const open: RealtimeConnection[] = [];
afterEach(() => {
  for (const c of open.splice(0)) c.close();
});

describeBackends("Client: a user's connection", function (this: Mocha.Suite, backend) {
  this.timeout(30_000);
  let node: TestNode;
  let app: TestApp;
  let alice: SignedIn;
  beforeEach(async () => {
    // ACCESS_TOKEN_TTL at its least (60 s), so that a token issued 58.5 s ago expires in 1.5 s.
    node = await backend.startNode({ ACCESS_TOKEN_TTL: "60" });
    app = await liveApp(node);
    alice = await signInTo(node, app, "alice", "openid realtime");
  });

  function connect(accessToken: string | (() => Promise<string>)) {
    const conn = createClient({ baseUrl: node.url }).connect({
      accessToken,
      socket: { reconnectionDelay: 50, reconnectionDelayMax: 200 },
    });
    open.push(conn);
    const r = record(conn);
    const ended: EndedEvent[] = [];
    const messages: MessageEvent[] = [];
    const subscribed: string[] = [];
    conn.on("ended", (e) => ended.push(e));
    conn.on("subscribed", ({ channel }) => subscribed.push(channel));
    return { conn, r, ended, messages, subscribed };
  }

  it("When a page connects with the user's access token, then it gets what the app's server publishes on the user's channel; a revocation ends it for good", async () => {
    const { conn, r, ended, messages, subscribed } = connect(alice.accessToken);
    conn.subscribe(`user:${alice.sub}`, (m) => messages.push(m));
    await r.until(() => subscribed.length === 1, "subscribed");
    await publishAsApp(node, app, { channel: `user:${alice.sub}`, data: "hello" });
    await r.until(() => messages.length === 1, "the message");
    expect(messages[0]).to.deep.include({ channel: `user:${alice.sub}`, data: "hello" });
    expect((await revokeAsApp(node, app, alice.accessToken)).status).to.equal(200);
    await r.until(() => r.errors.length > 0, "error");
    expect(ended).to.deep.equal([{ reason: "revoked" }]);
    expect(r.errors.map((e) => e.code)).to.deep.equal(["invalid_token"]);
    expect(conn.connected).to.equal(false);
  });

  it("When the access token expires and accessToken is a function, then the client reconnects with the token it gives then and resubscribes", async () => {
    // A token issued 58.5 s ago with ACCESS_TOKEN_TTL 60 s (the least): it expires in 1.5 s.
    const expiring = await node.server.services.oauth.grants.issueAccessToken(
      { userId: alice.sub, clientId: app.clientId, codeHash: "a-grant", scope: ["openid", "realtime"] },
      Date.now() - 58_500,
    );
    const given: string[] = [];
    const { conn, r, ended, messages, subscribed } = connect(async () => {
      const t = given.length === 0 ? expiring : alice.accessToken;
      given.push(t);
      return t;
    });
    conn.subscribe(`user:${alice.sub}`, (m) => messages.push(m));
    await r.readyCount(2);
    expect(ended).to.deep.equal([{ reason: "expired" }]);
    expect(given).to.deep.equal([expiring, alice.accessToken]);
    expect(r.errors).to.deep.equal([]);
    await r.until(() => subscribed.length === 2, "subscribed again");
    await publishAsApp(node, app, { channel: `user:${alice.sub}`, data: "after" });
    await r.until(() => messages.length === 1, "a message after the reconnection");
  });
});
