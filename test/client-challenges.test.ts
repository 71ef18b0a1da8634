// The bundled client's challenge calls (client/src) against live Sigil nodes: every call, in
// headers and in the JSON body, and every error as one SigilError (docs/errors.md, docs/http-api.md#challenges).
import { expect } from "chai";
import { createClient, type SigilClient } from "../client/src/index.js";
import { describeBackends } from "./support/backends.js";
import { rejection } from "./support/client-errors.js";

const UNKNOWN_KEY = "0b7c3d38-2b8a-4f5e-9a39-6a0d2d0c1e11";

describeBackends("Client: challenges", (backend) => {
  let sigil: SigilClient;
  beforeEach(async () => {
    const node = await backend.startNode();
    sigil = createClient({ baseUrl: node.url });
  });

  describe("When an app creates, reads and solves a challenge with the client", () => {
    it("then create gives a key, question reads it back, and solve says right or wrong", async () => {
      const { key } = await sigil.challenges.create({ question: "What is 6 x 7?", answer: "42" });
      expect(key).to.match(/^[0-9a-f-]{36}$/);
      expect(await sigil.challenges.question(key)).to.equal("What is 6 x 7?");
      expect(await sigil.challenges.solve(key, "41")).to.deep.equal({ correct: false });
      expect(await sigil.challenges.solve(key, "42")).to.deep.equal({ correct: true });
    });

    for (const text of ["日本の首都は？", "é", "🦊 fox 🦊", "  outer spaces  ", "tab\there"]) {
      it(`then text that a header cannot carry exactly round-trips: ${JSON.stringify(text)}`, async () => {
        const { key } = await sigil.challenges.create({ question: text, answer: text });
        expect(await sigil.challenges.question(key)).to.equal(text);
        expect(await sigil.challenges.solve(key, text)).to.deep.equal({ correct: true });
        expect(await sigil.challenges.solve(key, `${text}!`)).to.deep.equal({ correct: false });
      });
    }

    it("then a ttl is accepted in headers and in the body", async () => {
      const a = await sigil.challenges.create({ question: "ascii", answer: "x", ttl: 60 });
      const b = await sigil.challenges.create({ question: "東京?", answer: "東京", ttl: 2_592_000 });
      expect(await sigil.challenges.question(a.key)).to.equal("ascii");
      expect(await sigil.challenges.question(b.key)).to.equal("東京?");
    });

    it("then a trailing slash on the base URL changes nothing", async () => {
      const slashed = createClient({ baseUrl: `${sigil.baseUrl}/` });
      const { key } = await slashed.challenges.create({ question: "q", answer: "a" });
      expect(await slashed.challenges.question(key)).to.equal("q");
    });
  });

  describe("When the service refuses a call, then the client throws one SigilError", () => {
    it("404: an unknown key is not_found, with the documented description", async () => {
      const e = await rejection(sigil.challenges.question(UNKNOWN_KEY));
      expect(e.status).to.equal(404);
      expect(e.code).to.equal("not_found");
      expect(e.description).to.be.a("string").and.not.be.empty;
      expect(e.retryAfter).to.equal(undefined);
      expect(e.toJSON()).to.deep.equal({ error: "not_found", error_description: e.description });
      expect((await rejection(sigil.challenges.solve(UNKNOWN_KEY, "x"))).status).to.equal(404);
    });

    it("400: an empty question, a ttl out of range, a malformed key are invalid_request", async () => {
      for (const call of [
        () => sigil.challenges.create({ question: "", answer: "a" }),
        () => sigil.challenges.create({ question: "q", answer: "a", ttl: 59 }),
        () => sigil.challenges.create({ question: "日本", answer: "a", ttl: 2_592_001 }),
        () => sigil.challenges.solve("not-a-key", "a"),
        () => sigil.challenges.question("not-a-key"),
      ]) {
        const e = await rejection(call());
        expect(e.status).to.equal(400);
        expect(e.code).to.equal("invalid_request");
      }
    });

    it("400 without a request: a key no header can carry is refused by the client itself", async () => {
      const e = await rejection(sigil.challenges.question("鍵"));
      expect([e.status, e.code]).to.deep.equal([400, "invalid_request"]);
    });

    it("401: an unknown custom token is invalid_token", async () => {
      const e = await rejection(sigil.challenges.create({ question: "q", answer: "a", token: "not-a-real-token" }));
      expect([e.status, e.code]).to.deep.equal([401, "invalid_token"]);
    });

    it("429: too many wrong answers is rate_limited with retryAfter in seconds, the right answer too", async () => {
      const { key } = await sigil.challenges.create({ question: "q", answer: "right" });
      for (let i = 0; i < 10; i++)
        expect(await sigil.challenges.solve(key, `wrong ${i}`)).to.deep.equal({ correct: false });
      for (const attempt of ["wrong again", "right"]) {
        const e = await rejection(sigil.challenges.solve(key, attempt));
        expect([e.status, e.code]).to.deep.equal([429, "rate_limited"]);
        expect(e.retryAfter).to.be.a("number").within(1, 600);
      }
    });

    it("no service: a refused connection is network_error with status 0", async () => {
      const nowhere = createClient({ baseUrl: "http://127.0.0.1:9" });
      const e = await rejection(nowhere.challenges.create({ question: "q", answer: "a" }));
      expect([e.status, e.code]).to.deep.equal([0, "network_error"]);
    });
  });
});

describeBackends(
  "Client: challenges across two nodes on one Redis",
  (backend) => {
    it("When a challenge is made on one node, then the client reads and solves it on the other", async () => {
      const [a, b] = await Promise.all([backend.startNode(), backend.startNode()]);
      const onA = createClient({ baseUrl: a.url });
      const onB = createClient({ baseUrl: b.url });
      const { key } = await onA.challenges.create({ question: "日本の首都は？", answer: "東京" });
      expect(await onB.challenges.question(key)).to.equal("日本の首都は？");
      expect(await onB.challenges.solve(key, "大阪")).to.deep.equal({ correct: false });
      expect(await onA.challenges.solve(key, "東京")).to.deep.equal({ correct: true });
    });

    it("When wrong answers are spread over both nodes, then the limit still holds as one", async () => {
      const [a, b] = await Promise.all([backend.startNode(), backend.startNode()]);
      const clients = [createClient({ baseUrl: a.url }), createClient({ baseUrl: b.url })];
      const { key } = await clients[0]!.challenges.create({ question: "q", answer: "right" });
      for (let i = 0; i < 10; i++) await clients[i % 2]!.challenges.solve(key, `wrong ${i}`);
      const e = await rejection(clients[1]!.challenges.solve(key, "right"));
      expect(e.code).to.equal("rate_limited");
      expect(e.retryAfter).to.be.greaterThan(0);
    });
  },
  ["redis"],
);
