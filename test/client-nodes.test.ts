// Every client call across two Sigil nodes on one Redis, as behind a load balancer: sign-in
// started on one node and finished on the other; realtime connected to one node while the
// challenges are made and solved over the other's socket; a later run resumes on the other node
// with the saved `since`. (Challenges across nodes: client-challenges.test.ts.)
import { expect } from "chai";
import { compareEventIds, createClient, type RealtimeConnection } from "../client/src/index.js";
import { describeBackends } from "./support/backends.js";
import { record } from "./support/client-realtime.js";
import { PageClient, authorize, registerApp } from "./support/pages.js";

const APP = "test-app";
const FAST = { reconnectionDelay: 50, reconnectionDelayMax: 200 };

const open: RealtimeConnection[] = [];
afterEach(() => {
  for (const c of open.splice(0)) c.close();
});

describeBackends(
  "Client: every call across two nodes on one Redis",
  (backend) => {
    it("When a sign-in starts on one node and the code is traded on the other, then the user is read on either", async () => {
      const [a, b] = await Promise.all([backend.startNode(), backend.startNode()]);
      const dev = new PageClient(a.url);
      await dev.signUp("devon");
      const app = await registerApp(dev, ["https://app.example/cb"]);
      const alice = new PageClient(a.url);
      await alice.signUp("alice", "password123", "Alice Liddell");

      const onA = createClient({ baseUrl: a.url });
      const onB = createClient({ baseUrl: b.url });
      const req = await onA.signIn.authorize({ clientId: app.clientId, redirectUri: app.redirectUri });
      const callback = await authorize(alice, Object.fromEntries(new URL(req.url).searchParams));
      const { code } = onA.signIn.parseCallback(callback, { state: req.state });
      const credentials = { redirectUri: app.redirectUri, clientId: app.clientId, clientSecret: app.clientSecret };
      const token = await onB.signIn.exchangeCode({ code, verifier: req.verifier, ...credentials });
      for (const sigil of [onA, onB]) {
        expect(await sigil.signIn.getUser(token.access_token, app.clientId)).to.include({
          username: "alice",
          display_name: "Alice Liddell",
        });
      }
      // The code was spent on B: A refuses it too.
      try {
        await onA.signIn.exchangeCode({ code, verifier: req.verifier, ...credentials });
        expect.fail("no error");
      } catch (err) {
        expect(err).to.include({ code: "invalid_grant", status: 400 });
      }
    });

    it("When the app listens on one node and makes and solves challenges over the other's socket, then it sees every attempt, in order", async () => {
      const [a, b] = await Promise.all([backend.startNode(), backend.startNode()]);
      const { token } = await a.server.customTokens.create({ app: APP });
      const listener = createClient({ baseUrl: a.url }).connect({ token, socket: FAST });
      const worker = createClient({ baseUrl: b.url }).connect({ token, socket: FAST });
      open.push(listener, worker);
      const heard = record(listener);
      await Promise.all([heard.readyCount(1), record(worker).readyCount(1)]);

      const { key } = await worker.createChallenge({ question: "日本の首都は？", answer: "東京" });
      expect(await createClient({ baseUrl: a.url }).challenges.question(key)).to.equal("日本の首都は？");
      const answers = [];
      for (const attempt of ["大阪", "京都", "東京"]) answers.push((await worker.solve(key, attempt)).correct);
      expect(answers).to.deep.equal([false, false, true]);
      const events = await heard.eventCount(3);
      expect(events.map((e) => [e.key, e.correct])).to.deep.equal([
        [key, false],
        [key, false],
        [key, true],
      ]);
    });

    it("When the app's next run connects to the other node with the saved since, then it gets what it missed, once, and recovered", async () => {
      const [a, b] = await Promise.all([backend.startNode(), backend.startNode()]);
      const { token } = await a.server.customTokens.create({ app: APP });
      const first = createClient({ baseUrl: a.url }).connect({ token, socket: FAST });
      open.push(first);
      const r1 = record(first);
      await r1.readyCount(1);
      const http = createClient({ baseUrl: b.url }).challenges;
      const { key } = await http.create({ question: "q", answer: "a", token });
      await http.solve(key, "1");
      await r1.eventCount(1);
      const saved = first.lastEventId;
      first.close();
      await http.solve(key, "2");
      await http.solve(key, "a");

      const next = createClient({ baseUrl: b.url }).connect({ token, since: saved!, socket: FAST });
      open.push(next);
      const r2 = record(next);
      expect(await r2.readyCount(1)).to.deep.equal({ app: APP, recovered: true });
      await http.solve(key, "3");
      const marker = (await http.create({ question: "marker", answer: "m", token })).key;
      await http.solve(marker, "m");
      const events = await r2.eventsBefore(marker);
      expect(events.map((e) => e.correct)).to.deep.equal([false, true, false]);
      expect(events.map((e) => compareEventIds(e.id, saved!)! > 0)).to.deep.equal([true, true, true]);
    });
  },
  ["redis"],
);
