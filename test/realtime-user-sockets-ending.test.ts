// docs/realtime.md#when-a-users-socket-ends: a user's socket ends at once when its access token is
// revoked (itself, or its grant: the refresh token revoked or reused, the code replayed), the
// consent is withdrawn, an admin signs the user out everywhere or disables them (or an operator,
// with the CLI), the user deletes the account, the app is deleted or disabled, and when the token
// expires. On Redis the socket is on node B and the ending happens on node A; the socket gets
// `ended` and a server disconnect within BOUND_MS of the answer, and its token is refused from
// then on. Every store.
import { expect } from "chai";
import type { EndedEvent } from "../src/protocol.js";
import { ALL_BACKENDS, describeBackends } from "./support/backends.js";
import { call, refusal } from "./support/channel.js";
import { sigil } from "./support/cli.js";
import type { TestNode } from "./support/nodes.js";
import { trade } from "./support/oidc.js";
import { authorize, basic, person, token, type PageClient, type TestApp } from "./support/pages.js";
import {
  liveApp,
  publishAsApp,
  readyUserSocket,
  revokeAsApp,
  signInTo,
  userSocket,
  type SignedIn,
  type UserSocket,
} from "./support/user-sockets.js";
import { waitFor } from "./support/wait.js";

/** The documented bound (docs/realtime.md#users-sockets): from the answer to the disconnect. */
const BOUND_MS = 1000;

describeBackends(
  "A user's socket ends",
  function (this: Mocha.Suite, backend) {
    this.timeout(30_000);
    let a: TestNode, b: TestNode;
    let app: TestApp & { dev: PageClient };
    let alice: SignedIn;
    beforeEach(async () => {
      // ACCESS_TOKEN_TTL at its least (60 s), so that a token issued 58.5 s ago expires in 1.5 s.
      const env = { ADMIN_REQUIRE_2FA: "false", ACCESS_TOKEN_TTL: "60" };
      a = await backend.startNode(env);
      // Two nodes on one store on Redis; the embedded store is one node's.
      b = backend.redis ? await backend.startNode(env) : a;
      app = await liveApp(a);
      alice = await signInTo(a, app, "alice", "openid realtime offline_access");
    });

    /** `act` on node A answers; then the socket was told `reason` and disconnected within BOUND_MS. */
    async function expectEnds(s: UserSocket, reason: EndedEvent["reason"], act: () => Promise<unknown>) {
      await act();
      const answered = Date.now();
      const how = await s.c.waitDisconnect(BOUND_MS + 3000);
      const took = Date.now() - answered;
      expect(how).to.equal("io server disconnect");
      expect(s.ended).to.deep.equal([{ reason }]);
      expect(took, "ms from the answer to the disconnect").to.be.below(BOUND_MS);
    }

    async function expectRefused(token: string) {
      const err = await refusal(b.url, { auth: (cb) => cb({ access_token: token }) });
      expect(err.message).to.equal("invalid_token");
    }

    async function adminDoes(what: "signout" | "disable") {
      const { c: ada } = await person(a, "ada", { admin: true });
      await ada.confirm("correct horse battery", `/admin/users/${alice.sub}`);
      return async () => {
        const r = await ada.submit(`/admin/users/${alice.sub}`, `/admin/users/${alice.sub}/${what}`, {});
        expect(r.status, r.text.slice(0, 200)).to.equal(303);
      };
    }

    it("When the app revokes the access token, then its socket ends at once and another user's goes on", async () => {
      const bob = await signInTo(a, app, "bob", "openid realtime");
      const s = await readyUserSocket(b, alice.accessToken);
      const other = await readyUserSocket(b, bob.accessToken);
      await call(other.c, "subscribe", { channel: "news" });
      await expectEnds(s, "revoked", async () =>
        expect((await revokeAsApp(a, app, alice.accessToken)).status).to.equal(200),
      );
      await expectRefused(alice.accessToken);
      // A message published after the revocation reaches bob: his socket was left alone.
      await publishAsApp(a, app, { channel: "news", data: "still here" });
      expect((await other.c.waitMessages(1))[0]!.data).to.equal("still here");
      expect(other.ended).to.deep.equal([]);
    });

    it("When the app revokes the refresh token, then the sockets of the grant's access token end at once", async () => {
      const s = await readyUserSocket(b, alice.accessToken);
      await expectEnds(s, "revoked", () => revokeAsApp(a, app, alice.refreshToken!));
      await expectRefused(alice.accessToken);
    });

    it("When a used refresh token is presented again (reuse), then the sockets of its grant's tokens end at once", async () => {
      const refresh = (refreshToken: string) =>
        token(
          a.url,
          { grant_type: "refresh_token", refresh_token: refreshToken },
          { authorization: basic(app.clientId, app.clientSecret) },
        );
      const next = await refresh(alice.refreshToken!);
      expect(next.status, next.text).to.equal(200);
      const s = await readyUserSocket(b, next.json.access_token as string);
      await expectEnds(s, "revoked", async () => expect((await refresh(alice.refreshToken!)).status).to.equal(400));
    });

    it("When an authorization code is traded a second time (replay), then the sockets of its token end at once", async () => {
      const landed = await authorize(alice.c, {
        response_type: "code",
        client_id: app.clientId,
        redirect_uri: app.redirectUri,
        scope: "openid realtime",
      });
      const code = landed.searchParams.get("code")!;
      const first = await trade(a.url, app, code);
      expect(first.status, first.text).to.equal(200);
      const s = await readyUserSocket(b, first.json.access_token as string);
      await expectEnds(s, "revoked", async () => expect((await trade(a.url, app, code)).status).to.equal(400));
    });

    it("When the user withdraws the consent on /account, then the socket ends at once", async () => {
      const s = await readyUserSocket(b, alice.accessToken);
      await expectEnds(s, "revoked", async () => {
        const r = await alice.c.submit("/account", "/account/consents/withdraw", { client_id: app.clientId });
        expect(r.status).to.equal(303);
      });
      await expectRefused(alice.accessToken);
    });

    it("When an admin signs the user out everywhere, then the socket ends at once", async () => {
      const act = await adminDoes("signout");
      const s = await readyUserSocket(b, alice.accessToken);
      await expectEnds(s, "revoked", act);
      await expectRefused(alice.accessToken);
    });

    it("When an admin disables the user, then the socket ends at once", async () => {
      const act = await adminDoes("disable");
      const s = await readyUserSocket(b, alice.accessToken);
      await expectEnds(s, "revoked", act);
      await expectRefused(alice.accessToken);
    });

    it("When an operator disables the user with the CLI beside the nodes, then the socket ends within the bound", async function () {
      // The CLI cannot reach a store held in another process's memory.
      if (backend.name === "memory") this.skip();
      const s = await readyUserSocket(b, alice.accessToken);
      await expectEnds(s, "revoked", async () => {
        const cli = await sigil(
          { ...backend.env(), SECRET: a.config.secret },
          "users",
          "disable",
          "--username",
          "alice",
        );
        expect(cli.code, cli.err).to.equal(0);
      });
    });

    it("When the app's owner deletes the app on /developers, then its users' sockets end at once", async () => {
      const s = await readyUserSocket(b, alice.accessToken);
      await expectEnds(s, "revoked", async () => {
        const r = await app.dev.submit("/developers", `/developers/${app.clientId}/delete`, {});
        expect(r.status).to.equal(303);
      });
      await expectRefused(alice.accessToken);
    });

    it("When an operator disables the app with the CLI beside the nodes, then its users' sockets end within the bound", async function () {
      if (backend.name === "memory") this.skip();
      const s = await readyUserSocket(b, alice.accessToken);
      await expectEnds(s, "revoked", async () => {
        const env = { ...backend.env(), SECRET: a.config.secret };
        const cli = await sigil(env, "apps", "update", "--client-id", app.clientId, "--disabled", "on");
        expect(cli.code, cli.err).to.equal(0);
      });
      await expectRefused(alice.accessToken);
    });

    it("When the user deletes the account, then the socket ends at once", async () => {
      const s = await readyUserSocket(b, alice.accessToken);
      await expectEnds(s, "revoked", async () => {
        const r = await alice.c.submit("/account", "/account/delete", { password: "correct horse battery" });
        expect(r.status).to.equal(303);
      });
      await expectRefused(alice.accessToken);
    });

    it("When the access token expires, then the socket ends with reason expired", async () => {
      // A token issued 58.5 s ago: it expires in 1.5 s (at most; 0.5 s at least, issue times are whole seconds).
      const grants = a.server.services.oauth.grants;
      const token = await grants.issueAccessToken(
        { userId: alice.sub, clientId: app.clientId, codeHash: "a-grant", scope: ["openid", "realtime"] },
        Date.now() - 58_500,
      );
      const s = await readyUserSocket(b, token);
      const how = await s.c.waitDisconnect(5000);
      expect(how).to.equal("io server disconnect");
      expect(s.ended).to.deep.equal([{ reason: "expired" }]);
      await expectRefused(token);
    });

    it("When the same revocation is sent 50 times at once, then all 50 sockets of the token end within the bound and each request answers 200", async () => {
      const sockets = await Promise.all(Array.from({ length: 50 }, () => readyUserSocket(b, alice.accessToken)));
      const answers = await Promise.all(Array.from({ length: 50 }, () => revokeAsApp(a, app, alice.accessToken)));
      const answered = Date.now();
      expect(answers.map((r) => r.status)).to.deep.equal(Array(50).fill(200));
      for (const s of sockets) await s.c.waitDisconnect(BOUND_MS + 3000);
      expect(Date.now() - answered, "ms from the answers to the last disconnect").to.be.below(BOUND_MS);
      expect(sockets.map((s) => s.ended)).to.deep.equal(Array(50).fill([{ reason: "revoked" }]));
    });

    it("When 50 sockets connect while the token is revoked, then none of them stays connected", async () => {
      const racing = Array.from({ length: 50 }, () => userSocket(b, alice.accessToken));
      // How each one ended: refused at the handshake, or disconnected by the server once connected.
      const outcome = racing.map(() => "");
      racing.forEach((s, i) => {
        s.c.socket.on("connect_error", (e) => (outcome[i] = e.message));
        s.c.socket.on("disconnect", (reason) => (outcome[i] = reason));
      });
      expect((await revokeAsApp(a, app, alice.accessToken)).status).to.equal(200);
      await waitFor("every racing socket refused or ended", () => outcome.every((o) => o !== ""), {
        ms: BOUND_MS + 3000,
        everyMs: 5,
        seen: () => `${outcome.filter((o) => o === "").length} still open or connecting`,
      });
      for (const [i, o] of outcome.entries()) {
        expect(o).to.be.oneOf(["invalid_token", "io server disconnect"]);
        if (o !== "invalid_token") expect(racing[i]!.ended).to.deep.equal([{ reason: "revoked" }]);
      }
    });
  },
  ALL_BACKENDS,
);
