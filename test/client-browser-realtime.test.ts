// The browser bundle's realtime connection in headless Chromium: a page that loads /client.js
// (the /demo page, so its CSP is exercised too) creates a challenge with non-Latin-1 text, reads
// it back, solves it, receives the live results over the socket, and after a server-side
// disconnect resumes with no event lost or repeated; a signed-in user's page connects with its access
// token and receives its own channel. The demo's own live results section is driven as a visitor
// would in client-browser-demo.test.ts.
import { expect } from "chai";
import type { Page } from "playwright-core";
import type * as SigilModule from "../client/src/index.js";
import type { ChallengeResultEvent, EndedEvent, MessageEvent, ReadyEvent } from "../client/src/index.js";
import { describeBackends, oneBackend } from "./support/backends.js";
import { pagePerTest } from "./support/browser.js";
import { challengeApi } from "./support/http.js";
import { liveApp, publishAsApp, revokeAsApp, signInTo } from "./support/user-sockets.js";

declare const Sigil: typeof SigilModule;
declare global {
  interface Window {
    seen: { events: ChallengeResultEvent[]; readies: ReadyEvent[]; disconnects: string[] };
    conn: SigilModule.RealtimeConnection;
    user: { messages: MessageEvent[]; ended: EndedEvent[]; errors: string[]; subscribed: number };
  }
}

describeBackends(
  "Client in a browser: realtime",
  (backend) => {
    let page: Page;
    pagePerTest((p) => (page = p));

    it("When a page connects with a CUSTOM TOKEN, then results arrive live, and a server-side disconnect loses or repeats nothing", async () => {
      const node = await backend.startNode();
      const { token } = await node.server.customTokens.create({ app: "test-app" });
      await page.goto(`${node.url}/demo`);
      const out = await page.evaluate(async (token) => {
        window.seen = { events: [], readies: [], disconnects: [] };
        const sigil = Sigil.createClient();
        window.conn = sigil.connect({ token, socket: { reconnectionDelay: 50, reconnectionDelayMax: 200 } });
        window.conn.on("challenge:result", (e) => window.seen.events.push(e));
        window.conn.on("ready", (e) => window.seen.readies.push(e));
        window.conn.on("disconnect", (reason) => window.seen.disconnects.push(reason));
        const { key } = await window.conn.createChallenge({ question: "日本の首都は？", answer: "東京" });
        const question = await sigil.challenges.question(key);
        const first = await sigil.challenges.solve(key, "大阪");
        return { key, question, first };
      }, token);
      const { key } = out;
      expect(out.question).to.equal("日本の首都は？");
      expect(out.first).to.deep.equal({ correct: false });
      await page.waitForFunction(() => window.seen.events.length === 1);

      // The server drops the socket; two attempts happen while the page is away.
      node.server.io.disconnectSockets(true);
      await page.waitForFunction(() => window.seen.disconnects.includes("io server disconnect"));
      const api = challengeApi(node.url);
      await api.solve(key, "京都");
      await api.solve(key, "東京");
      await page.waitForFunction(() => window.seen.readies.length === 2 && window.seen.events.length === 3);
      await page.waitForTimeout(200);
      const seen = await page.evaluate(() => window.seen);
      expect(seen.readies).to.deep.equal([
        { app: "test-app", recovered: false },
        { app: "test-app", recovered: true },
      ]);
      expect(seen.events.map((e) => [e.key, e.correct])).to.deep.equal([
        [key, false],
        [key, false],
        [key, true],
      ]);
      expect(new Set(seen.events.map((e) => e.id)).size).to.equal(3);
    });

    it("When a signed-in user's page connects with its access token, then it receives what the app's server publishes to the user, and the token's revocation ends it for good", async () => {
      const node = await backend.startNode();
      const app = await liveApp(node);
      const alice = await signInTo(node, app, "alice", "openid realtime");
      await page.goto(`${node.url}/demo`);
      await page.evaluate(
        ({ accessToken, channel }) => {
          window.user = { messages: [], ended: [], errors: [], subscribed: 0 };
          window.conn = Sigil.createClient().connect({ accessToken });
          window.conn.subscribe(channel, (m) => window.user.messages.push(m));
          window.conn.on("subscribed", () => window.user.subscribed++);
          window.conn.on("ended", (e) => window.user.ended.push(e));
          window.conn.on("error", (e) => window.user.errors.push(e.code));
        },
        { accessToken: alice.accessToken, channel: `user:${alice.sub}` },
      );
      await page.waitForFunction(() => window.user.subscribed === 1);
      const r = await publishAsApp(node, app, { channel: `user:${alice.sub}`, data: { order: 42 } });
      expect(r.status, r.text).to.equal(200);
      await page.waitForFunction(() => window.user.messages.length === 1);
      expect((await revokeAsApp(node, app, alice.accessToken)).status).to.equal(200);
      await page.waitForFunction(() => window.user.errors.length === 1);
      const seen = await page.evaluate(() => window.user);
      expect(seen.messages.map((m) => [m.channel, m.data])).to.deep.equal([[`user:${alice.sub}`, { order: 42 }]]);
      expect(seen.ended).to.deep.equal([{ reason: "revoked" }]);
      expect(seen.errors).to.deep.equal(["invalid_token"]);
    });
  },
  oneBackend("lmdb"),
);
