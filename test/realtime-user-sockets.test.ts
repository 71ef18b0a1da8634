// docs/realtime.md#users-sockets: a page of an app, signed in with Sigil (openid-client, scope
// `realtime`), connects with `auth: {access_token}`; it may subscribe to its own `user:<sub>` and
// to the app's channels that do not begin with `user:`, never to another user's; it is not one of
// the app's servers (no challenge:result, no identity events, no challenge:new); bad tokens are
// refused in the documented format. Every store.
import { expect } from "chai";
import type { ErrorObject } from "../src/protocol.js";
import { ALL_BACKENDS, describeBackends } from "./support/backends.js";
import { call, readyClient, refusal } from "./support/channel.js";
import { challengeApi } from "./support/http.js";
import { waitFor } from "./support/wait.js";
import type { TestNode } from "./support/nodes.js";
import type { TestApp } from "./support/pages.js";
import {
  liveApp,
  publishAsApp,
  readyUserSocket,
  revokeAsApp,
  signInTo,
  type SignedIn,
} from "./support/user-sockets.js";

function expectError(v: unknown, code: string): void {
  expect(Object.keys(v as object).sort(), JSON.stringify(v)).to.deep.equal(["error", "error_description"]);
  expect((v as ErrorObject).error).to.equal(code);
}

describeBackends(
  "Users' sockets",
  function (this: Mocha.Suite, backend) {
    this.timeout(30_000);
    let node: TestNode;
    let app: TestApp;
    let alice: SignedIn;
    beforeEach(async () => {
      node = await backend.startNode();
      app = await liveApp(node);
      alice = await signInTo(node, app, "alice", "openid profile realtime");
    });

    it("When a user's page and the app's server subscribe to one channel, then presence lists the user by sub and the token by id, and a presence subscriber hears the user join and leave by sub", async () => {
      const server = await node.server.customTokens.create({ app: app.clientId });
      const watcher = await readyClient(node.url, { token: server.token });
      expect(await call(watcher, "subscribe", { channel: "lobby", presence: true })).to.deep.equal({
        recovered: false,
      });
      const s = await readyUserSocket(node, alice.accessToken);
      expect(await call(s.c, "subscribe", { channel: "lobby" })).to.deep.equal({ recovered: false });
      await waitFor("alice's join", () => watcher.presence.includes(`join lobby sub:${alice.sub}`), {
        seen: () => watcher.presence.join(", "),
      });
      const ack = (await call(s.c, "presence", { channel: "lobby" })) as { members: object[] };
      expect(ack.members).to.have.deep.members([
        { sub: alice.sub, connections: 1 },
        { token: server.id, connections: 1 },
      ]);
      // Never the access token, nor its hash, as a member.
      expect(JSON.stringify(ack)).to.not.include(alice.accessToken.slice(-16));
      s.c.socket.disconnect();
      await waitFor("alice's leave", () => watcher.presence.includes(`leave lobby sub:${alice.sub}`), {
        seen: () => watcher.presence.join(", "),
      });
      // Her own channel's presence is hers to ask, not another user's.
      const again = await readyUserSocket(node, alice.accessToken);
      expectError(await call(again.c, "presence", { channel: "user:someone-else" }), "forbidden");
    });

    it("When a signed-in user's page connects with its access token, then it subscribes to its own user channel and the app's others and gets what the app's server publishes there; another user's channel is forbidden", async () => {
      const s = await readyUserSocket(node, alice.accessToken);
      expect(s.c.readies).to.deep.equal([{ app: app.clientId, recovered: false }]);
      expect(await call(s.c, "subscribe", { channel: `user:${alice.sub}` })).to.deep.equal({ recovered: false });
      expect(await call(s.c, "subscribe", { channel: "news" })).to.deep.equal({ recovered: false });
      for (const channel of ["user:someone-else", `user:${alice.sub}x`, "user:"])
        expectError(await call(s.c, "subscribe", { channel }), "forbidden");
      const r = await publishAsApp(node, app, [
        { channel: `user:${alice.sub}`, data: { order: 42, status: "shipped" } },
        { channel: "user:someone-else", data: "not for alice" },
        { channel: "news", data: "for everyone" },
      ]);
      expect(r.status, r.text).to.equal(200);
      const got = await s.c.waitMessages(2);
      expect(got.map((m) => [m.channel, m.data])).to.deep.equal([
        [`user:${alice.sub}`, { order: 42, status: "shipped" }],
        ["news", "for everyone"],
      ]);
      // The sub is the one the app's ID token and /userinfo name.
      const me = await fetch(`${node.url}/userinfo`, { headers: { authorization: `Bearer ${alice.accessToken}` } });
      expect(((await me.json()) as { sub: string }).sub).to.equal(alice.sub);
    });

    it("When the app's servers get challenge results and identity events, then its users' sockets get neither (not even replayed with since), and may not create challenges", async () => {
      const { token } = await node.server.customTokens.create({ app: app.clientId });
      const server = await readyClient(node.url, { token });
      const s = await readyUserSocket(node, alice.accessToken);
      // With since, a CUSTOM TOKEN's socket would get the app's history replayed: a user's gets none.
      const late = await readyUserSocket(node, alice.accessToken, { since: "0-0" });
      expect(late.c.readies).to.deep.equal([{ app: app.clientId, recovered: false }]);
      for (const u of [s, late]) await call(u.c, "subscribe", { channel: `user:${alice.sub}` });
      expectError(await call(s.c, "challenge:new", { question: "q?", answer: "a" }), "forbidden");

      const key = await challengeApi(node.url).createKey("q", "a", { authorization: `Bearer ${token}` });
      await challengeApi(node.url).solve(key, "a");
      await server.waitEvents(1);
      // Another user of the app withdraws their consent: the app's servers hear it, users do not.
      const bob = await signInTo(node, app, "bob", "openid realtime");
      const identity: unknown[] = [];
      server.socket.on("identity", (e) => identity.push(e));
      const withdrawn = await bob.c.submit("/account", "/account/consents/withdraw", { client_id: app.clientId });
      expect(withdrawn.status).to.equal(303);
      await waitFor("the identity event on the app's server socket", () => identity.length === 1, { everyMs: 5 });
      // A marker published after both, on the same node's feed: what came before it is all there was.
      await publishAsApp(node, app, { channel: `user:${alice.sub}`, data: "marker" });
      for (const u of [s, late]) {
        await u.c.waitMessages(1);
        expect(u.names).to.deep.equal(["ready", "message"]);
      }
      // Solving is open to anyone (as over HTTP).
      const anon = await challengeApi(node.url).createKey("2+2?", "4");
      expect(await call(s.c, "challenge:solve", { key: anon, a: "4" })).to.deep.equal({ correct: true });
    });

    it("When the token is wrong, revoked, of another kind or lacks the scope realtime, then the handshake is refused in the documented format and the node stays up", async () => {
      const plain = await signInTo(node, app, "carol", "openid profile");
      const { token: custom } = await node.server.customTokens.create({ app: app.clientId });
      const revoked = (await signInTo(node, app, "dave", "openid realtime")).accessToken;
      expect((await revokeAsApp(node, app, revoked)).status).to.equal(200);
      const cases: Array<[unknown, string]> = [
        ["nope", "invalid_token"],
        [`${app.clientId}.nope`, "invalid_token"],
        ["", "invalid_token"],
        [123, "invalid_token"],
        [{ token: "x" }, "invalid_token"],
        ["x".repeat(5000), "invalid_token"],
        [custom, "invalid_token"],
        [revoked, "invalid_token"],
        [plain.accessToken, "insufficient_scope"],
      ];
      for (const [accessToken, code] of cases) {
        const err = await refusal(node.url, { auth: (cb) => cb({ access_token: accessToken }) });
        expect(err.message, JSON.stringify(accessToken).slice(0, 40)).to.equal(code);
        expectError(err.data, code);
        expect(JSON.stringify(err.data)).to.not.contain(String(accessToken).slice(0, 40) || "\u0000");
      }
      // The node is fine, and a good token still connects.
      await readyUserSocket(node, alice.accessToken);
      expect(node.logs.join("\n")).to.not.contain(alice.accessToken);
    });
  },
  ALL_BACKENDS,
);
